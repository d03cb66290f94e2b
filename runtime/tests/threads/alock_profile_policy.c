/* alock_profile_policy.c: a policy of one's own exports the lock's contention profile
 * (mpd_alock_profile and mpd_alock_profile_write) from inside the policy, which
 * runs while its caller holds the lock.  A deadlock is caught by alarm(). */
#include <stdio.h>
#include <unistd.h>
#include "mpd/alock.h"
#include "check.h"

static long calls, exported, written_ok;

static void exporting_policy(mpd_alock_t *l, const mpd_alock_monitor_t *m, void *arg)
{
    (void)m;
    (void)arg;
    mpd_alock_sample_t s[64];
    calls++;
    exported += (long)mpd_alock_profile(l, s, 64);
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        if (mpd_alock_profile_write(l, f) == 0)
            written_ok++;
        fclose(f);
    }
}

int main(void)
{
    alarm(20); /* a deadlock ends the test with SIGALRM */
    mpd_alock_attr_t a;
    for (int kind = 0; kind < 3; kind++) {
        calls = exported = written_ok = 0;
        mpd_alock_attr_init(&a, kind == 0   ? MPD_ALOCK_SPIN
                                : kind == 1 ? MPD_ALOCK_BLOCK
                                            : MPD_ALOCK_ADAPTIVE);
        a.policy = exporting_policy;
        a.name = "exported";
        mpd_alock_t *l = mpd_alock_create(&a);
        CHECK(l != NULL);
        for (int i = 0; i < 200; i++) {
            mpd_alock_lock(l);
            mpd_alock_unlock(l);
        }
        printf("kind %d: policy ran %ld times, %ld samples exported, %ld writes\n", kind, calls,
               exported, written_ok);
        CHECK(calls > 0);
        CHECK(exported > 0);
        CHECK_EQ_L(written_ok, calls);
        mpd_alock_destroy(l);
    }
    CHECK_DONE();
}
