abc
def
ghij