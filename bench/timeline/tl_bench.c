/* tl_bench.c: what one timeline event costs its recording thread
 * (bench/timeline/run.sh).  Records N events through mpd__tl_rec, the
 * function every hook ends in, and prints ns per event, best of R rounds:
 *   fresh  -- every chunk new (the first touch of its pages included), as
 *             in a run shorter than MPD_TIMELINE_MAX;
 *   reused -- past MPD_TIMELINE_MAX, each chunk reused (warm pages).
 * The program re-runs itself with MPD_TIMELINE set (read before main), and
 * the log it writes at the end goes to /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/timeline.h"

int mpd__finish_output(int status);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (!getenv("MPD_TIMELINE")) { /* again, recording: fresh, then reused */
        char cmd[4096];
        const char *n = argc > 1 ? argv[1] : "2000000", *r = argc > 2 ? argv[2] : "7";
        snprintf(cmd, sizeof cmd,
                 "MPD_TIMELINE=/dev/null TLB_MODE=fresh '%s' %s %s && "
                 "MPD_TIMELINE=/dev/null MPD_TIMELINE_MAX=65536 TLB_MODE=reused '%s' %s %s",
                 argv[0], n, r, argv[0], n, r);
        return system(cmd) == 0 ? 0 : 1;
    }
    const char *mode = getenv("TLB_MODE");
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (!mpd__tl_on) {
        fprintf(stderr, "tl_bench: the timeline is off\n");
        return 1;
    }
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++)
            mpd__tl_rec(TL_SEND, 1, (uint64_t)i, "bench.mpd", (int)(i & 1023));
        double ns = (now() - t0) / n;
        if (ns < best)
            best = ns;
    }
    printf("timeline event (%s chunks): %.1f ns per event (best of %d rounds of %ld)\n",
           mode ? mode : "?", best, rounds, n);
    fflush(stdout);
    _exit(0); /* not the log of 14M events: only the recording is measured */
}
