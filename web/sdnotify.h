#ifndef PR_SDNOTIFY_H
#define PR_SDNOTIFY_H

/*
 * Telling systemd (Type=notify) how the service stands: "READY=1",
 * "RELOADING=1", "STOPPING=1".  The datagram protocol of sd_notify(3):
 * one message to the unix socket $NOTIFY_SOCKET names ('@': an abstract
 * one).  Returns 0 when sent or when there is no such socket (not under
 * systemd), else a negative PR_E* code with a message.
 */
int pr_sd_notify(const char *state);

#endif
