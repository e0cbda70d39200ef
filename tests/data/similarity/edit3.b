changed
line 1
line 2
changed
line 4
line 5
changed
line 7
line 8
changed
line 10
line 11
changed
line 13
line 14
changed
line 16
line 17
changed
line 19
line 20
changed
line 22
line 23
changed
line 25
line 26
changed
line 28
line 29
changed
line 31
line 32
changed
line 34
line 35
changed
line 37
line 38
changed
line 40
line 41
changed
line 43
line 44
changed
line 46
line 47
changed
line 49
line 50
changed
line 52
line 53
changed
line 55
line 56
changed
line 58
line 59
changed
line 61
line 62
changed
line 64
line 65
changed
line 67
line 68
changed
line 70
line 71
changed
line 73
line 74
changed
line 76
line 77
changed
line 79
line 80
changed
line 82
line 83
changed
line 85
line 86
changed
line 88
line 89
changed
line 91
line 92
changed
line 94
line 95
changed
line 97
line 98
changed
