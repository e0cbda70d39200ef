a
b
d
