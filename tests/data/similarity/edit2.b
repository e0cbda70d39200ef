changed
line 1
changed
line 3
changed
line 5
changed
line 7
changed
line 9
changed
line 11
changed
line 13
changed
line 15
changed
line 17
changed
line 19
changed
line 21
changed
line 23
changed
line 25
changed
line 27
changed
line 29
changed
line 31
changed
line 33
changed
line 35
changed
line 37
changed
line 39
changed
line 41
changed
line 43
changed
line 45
changed
line 47
changed
line 49
changed
line 51
changed
line 53
changed
line 55
changed
line 57
changed
line 59
changed
line 61
changed
line 63
changed
line 65
changed
line 67
changed
line 69
changed
line 71
changed
line 73
changed
line 75
changed
line 77
changed
line 79
changed
line 81
changed
line 83
changed
line 85
changed
line 87
changed
line 89
changed
line 91
changed
line 93
changed
line 95
changed
line 97
changed
line 99
