#include "base/pr.h"

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sdnotify.h"

int pr_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t len;
	size_t n;
	int fd, err = 0;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    (n = strlen(path)) >= sizeof(sa.sun_path) || n < 2)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	/* an abstract name's length is exact: no trailing NUL counted */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || sendto(fd, state, strlen(state), MSG_NOSIGNAL,
			     (struct sockaddr *)&sa, len) < 0)
		err = pr_error(PR_EIO, "cannot tell systemd '%s': %s", state,
			       strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}
