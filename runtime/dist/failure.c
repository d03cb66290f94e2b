/* failure.c: a vm's process that dies outright (kill -9, the OOM killer).
 *
 * mpirun notices the death and ends the job: it sends SIGTERM to every
 * other process (then SIGKILL), and with -q says nothing about it.  So the
 * main vm, on that SIGTERM, looks for the dead: each process told every
 * other its host and pid at start-up, and a process on rank 0's own host
 * that no longer exists is reported by vm number, host and pid, as an RTS
 * abort of the main vm.  (A process on another host cannot be looked at
 * from here: see docs/distributed.md, "Next".) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "dist/dist.h"

int *dist_pids;              /* [rank] its pid (comm.c fills it) */
char (*dist_real_hosts)[64]; /* [rank] gethostname(), for the look */

static void say(const char *s)
{
    if (write(2, s, strlen(s)) < 0)
        return;
}

static void on_term(int sig)
{
    (void)sig;
    int found = 0;
    for (int r = 1; r < dist_size; r++) {
        if (strcmp(dist_real_hosts[r], dist_real_hosts[0]) != 0)
            continue;
        if (kill(dist_pids[r], 0) == 0 || errno != ESRCH)
            continue;
        char buf[400];
        uint32_t vm = dist_vms_of_rank(r);
        if (vm)
            snprintf(buf, sizeof buf,
                     "%sRTS abort: virtual machine %u (host %s, process %d) ended unexpectedly\n",
                     mpd_rts_label, vm, dist_hosts[r], dist_pids[r]);
        else
            snprintf(
                buf, sizeof buf,
                "%sRTS abort: the process of rank %d (host %s, process %d) ended unexpectedly\n",
                mpd_rts_label, r, dist_hosts[r], dist_pids[r]);
        if (!found)
            fflush(stdout);
        say(buf);
        found = 1;
    }
    if (!found) { /* ended from outside, as any program */
        fflush(stdout);
        signal(SIGTERM, SIG_DFL);
        raise(SIGTERM);
    }
    _exit(1);
}

void dist_failure_install(void)
{
    if (dist_rank != 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
}
