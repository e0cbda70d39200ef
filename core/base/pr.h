#ifndef PR_PR_H
#define PR_PR_H

/*
 * The one header every patchrelay source file includes first: the system
 * headers everyone needs, the allocation, buffer, error and log helpers, and
 * the banned-function list last.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/limits.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/buf.h"
#include "base/log.h"

#define PR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PR_UNUSED(x) ((void)(x))

#include "base/banned.h"

#endif
