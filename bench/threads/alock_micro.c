/* alock_micro.c: N uncontended lock+unlock pairs of one adaptive-lock kind, for instruction
 * counts (the machine is too noisy for nanoseconds at this scale):
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null build/bench/threads/alock_micro KIND [N]
 * KIND = spin | block | adaptive; N defaults to 1000000. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpd/alock.h"

int main(int argc, char **argv)
{
    int k = argc < 2                       ? -1
            : !strcmp(argv[1], "spin")     ? MPD_ALOCK_SPIN
            : !strcmp(argv[1], "block")    ? MPD_ALOCK_BLOCK
            : !strcmp(argv[1], "adaptive") ? MPD_ALOCK_ADAPTIVE
                                           : -1;
    if (k < 0) {
        fprintf(stderr, "usage: alock_micro spin|block|adaptive [N]\n");
        return 2;
    }
    mpd_alock_attr_t a;
    mpd_alock_attr_init(&a, (enum mpd_alock_kind)k);
    mpd_alock_t *l = mpd_alock_create(&a);
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    for (long i = 0; i < n; i++) {
        mpd_alock_lock(l);
        mpd_alock_unlock(l);
    }
    mpd_alock_stats_t s;
    mpd_alock_stats(l, &s);
    printf("alock_micro %s: %lu acquisitions, %lu contended\n", argv[1], s.acquisitions,
           s.contended);
    return 0;
}
