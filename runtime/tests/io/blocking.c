/* blocking.c: input from a pipe waits without stopping the other MPD
 * processes (one VP, so a blocked OS thread would stop everything), a token
 * may arrive in pieces, two processes reading one stream each get whole
 * values, and getarg falls back to the runtime's argv. */
#include <signal.h>
#include "mpd/abi/io.h"
#include "mpd/rt.h"
#include "check.h"

#define F "b.mpd"

static int wfd; /* write end of the pipe that is stdin */
static int got[2] = {-1, -1};

static void reader(void *arg)
{
    int *slot = arg;
    long long n = mpd_read(F, 1, mpd_stdin, 1, (mpd_dest[]){MPD_DI(slot)});
    if (n != 1)
        *slot = -100;
}

static void put(const char *s)
{
    if (write(wfd, s, strlen(s)) != (ssize_t)strlen(s))
        exit(2);
}

static void main_proc(void *arg)
{
    (void)arg;
    /* one reader: the writer below can only run if the reader's wait does
     * not hold the only VP; the token comes in two pieces */
    mpd_proc *r = mpd_proc_create(reader, &got[0], NULL);
    mpd_nap(50);
    put("12");
    mpd_nap(50);
    put("34\n");
    mpd_proc_join(r, NULL);
    CHECK_INT(got[0], 1234);

    /* two readers of one stream: each gets one whole value */
    got[0] = got[1] = -1;
    mpd_proc *a = mpd_proc_create(reader, &got[0], NULL);
    mpd_proc *b = mpd_proc_create(reader, &got[1], NULL);
    mpd_nap(50);
    put("1000 2000\n");
    mpd_nap(20);
    put("3000\n");
    mpd_proc_join(a, NULL);
    mpd_proc_join(b, NULL);
    CHECK((got[0] == 1000 && got[1] == 2000) || (got[0] == 2000 && got[1] == 1000));

    /* the rest is still there for the next read */
    int x = 0;
    CHECK_INT(mpd_read(F, 2, mpd_stdin, 1, (mpd_dest[]){MPD_DI(&x)}), 1);
    CHECK_INT(x, 3000);

    /* getarg without mpd_args_set: the runtime's command line */
    char s[20];
    int len = 0;
    CHECK_INT(mpd_numargs(), 1);
    CHECK_INT(mpd_getarg(F, 3, 1, &MPD_DS(s, 20, &len)), 4);
    CHECK(len == 4 && memcmp(s, "word", 4) == 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    dup2(fds[0], 0);
    close(fds[0]);
    wfd = fds[1];
    alarm(20); /* a blocked VP would hang: fail instead */
    mpd_rt_set_nvp(1);
    char *args[] = {argv[0], "word", NULL};
    int rc = mpd_rt_main(2, args, main_proc, NULL);
    CHECK_INT(rc, 0);
    return report("io/blocking");
}
