/* quiesce_test.c: end of program and deadlock -- the quiescence hook runs as
 * a process, the default report lists blocked processes newest first in
 * MPD's format, and the exit status is kept. */
#include "harness.h"

static mpd_sem never;

static void hang(void *a)
{
    mpd_set_loc("deadlock.mpd", (int)(intptr_t)a);
    mpd_sem_P(&never);
}

static void body_deadlock(void *arg)
{
    (void)arg;
    mpd_sem_init(&never, 0);
    const char *names[] = {"deadlock.a", "deadlock.b", "deadlock.c"};
    for (int i = 0; i < 3; i++) {
        mpd_proc_attr at = MPD_PROC_ATTR_INIT;
        at.name = names[i];
        at.detached = 1;
        mpd_proc_create(hang, (void *)(intptr_t)(26 + i), &at);
    }
    printf("main done\n");
}

static void final_hook(int all_done, void *arg)
{
    (void)arg;
    printf("final all_done=%d\n", all_done);
    mpd_proc_set_name(mpd_self(), "deadlock.final");
    if (getenv("HANG_FINAL")) {
        mpd_set_loc("deadlock.mpd", 49);
        mpd_sem_P(&never);
    }
    printf("final done\n");
}

static void body_with_hook(void *arg)
{
    mpd_rt_set_quiesce_hook(final_hook, NULL);
    mpd_rt_set_exit_status(5);
    if (arg)
        body_deadlock(NULL);
}

static void napper(void *a)
{
    (void)a;
    mpd_nap(30);
    printf("napped\n");
}
static void body_nap(void *arg)
{
    (void)arg;
    mpd_rt_set_quiesce_hook(final_hook, NULL);
    mpd_proc_create(napper, NULL, NULL); /* a pending timer is no deadlock */
}

int main(void)
{
    char *out;
    int rc = run_child(body_deadlock, NULL, 1, &out);
    CHECK_EQ(rc, 0);
    CHECK(!strcmp(out, "main done\n"
                       "RTS warning: blocked process: deadlock.c : file deadlock.mpd, line 28\n"
                       "RTS warning: blocked process: deadlock.b : file deadlock.mpd, line 27\n"
                       "RTS warning: blocked process: deadlock.a : file deadlock.mpd, line 26\n"));
    if (t_failures)
        fprintf(stderr, "got:\n%s", out);
    free(out);

    rc = run_child(body_with_hook, NULL, 2, &out);
    CHECK_EQ(rc, 5);
    CHECK(!strcmp(out, "final all_done=1\nfinal done\n"));
    free(out);

    rc = run_child(body_with_hook, (void *)1, 2, &out);
    CHECK_EQ(rc, 5);
    const char *want =
        "main done\nfinal all_done=0\nfinal done\nRTS warning: blocked process: deadlock.c";
    CHECK(!strncmp(out, want, strlen(want)));
    free(out);

    setenv("HANG_FINAL", "1", 1);
    rc = run_child(body_with_hook, (void *)1, 1, &out);
    CHECK(!strcmp(out, "main done\nfinal all_done=0\n"
                       "RTS warning: blocked process: deadlock.final : file deadlock.mpd, line 49\n"
                       "RTS warning: blocked process: deadlock.c : file deadlock.mpd, line 28\n"
                       "RTS warning: blocked process: deadlock.b : file deadlock.mpd, line 27\n"
                       "RTS warning: blocked process: deadlock.a : file deadlock.mpd, line 26\n"));
    if (t_failures)
        fprintf(stderr, "got:\n%s", out);
    free(out);
    unsetenv("HANG_FINAL");

    rc = run_child(body_nap, NULL, 1, &out);
    CHECK(!strcmp(out, "napped\nfinal all_done=1\nfinal done\n"));
    free(out);
    return t_done("quiesce_test");
}
