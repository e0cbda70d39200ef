#ifndef PR_BANNED_H
#define PR_BANNED_H

/*
 * Unsafe libc calls are banned at compile time (the idea is git's banned.h):
 * use pr_buf or snprintf instead.  Include this after the system headers.
 */

#define PR_BANNED(func) sorry_##func##_is_banned_use_pr_buf

#undef strcpy
#define strcpy(x, y) PR_BANNED(strcpy)
#undef strcat
#define strcat(x, y) PR_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) PR_BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) PR_BANNED(strncat)
#undef strtok
#define strtok(x, y) PR_BANNED(strtok)
#undef sprintf
#define sprintf(...) PR_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) PR_BANNED(vsprintf)
#undef gets
#define gets(x) PR_BANNED(gets)
#undef gmtime
#define gmtime(t) PR_BANNED(gmtime)
#undef localtime
#define localtime(t) PR_BANNED(localtime)
#undef ctime
#define ctime(t) PR_BANNED(ctime)
#undef asctime
#define asctime(t) PR_BANNED(asctime)

#endif
