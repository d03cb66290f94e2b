/* files.c: open/close/flush/seek/where/remove, the noop and null files,
 * getarg/numargs, and the math and random functions. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include "mpd/abi/io.h"
#include "check.h"

#define F "t.mpd"
#define S(lit) lit, (int)(sizeof lit - 1)
#define VS(lit) MPD_VS(lit, (int)(sizeof lit - 1))

static char tmpname[64];

static void seek_where(void)
{
    mpd_file f = mpd_open(F, 1, tmpname, (int)strlen(tmpname), MPD_WRITE);
    CHECK(f != NULL);
    mpd_write(F, 2, f, 1, (mpd_val[]){VS("123456789")});
    mpd_write(F, 3, f, 1, (mpd_val[]){VS("abcdef")});
    mpd_write(F, 4, f, 1, (mpd_val[]){VS("ghij")});
    mpd_close(F, 5, f);
    f = mpd_open(F, 6, tmpname, (int)strlen(tmpname), MPD_READ);
    CHECK(f != NULL);
    char a[5];
    /* read into char[5]: a line that fits takes its newline along */
    static const struct {
        int at;
        const char *a;
        int where;
    } steps[] = {
        {0, "12345", 5},   {4, "56789", 10},  {5, "6789 ", 10},  {9, "     ", 10},
        {10, "abcde", 15}, {11, "bcdef", 17}, {12, "cdef ", 17}, {17, "ghij ", 22},
    };
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        CHECK_INT(mpd_seek(F, 7, f, MPD_ABSOLUTE, steps[k].at), steps[k].at);
        CHECK_INT(mpd_read(F, 8, f, 1, (mpd_dest[]){MPD_DA(a, 5)}), 1);
        CHECK(memcmp(a, steps[k].a, 5) == 0);
        CHECK_INT(mpd_where(F, 9, f), steps[k].where);
    }
    CHECK_INT(mpd_read(F, 10, f, 1, (mpd_dest[]){MPD_DA(a, 5)}), MPD_EOF);
    mpd_seek(F, 11, f, MPD_ABSOLUTE, 12);
    CHECK_INT(mpd_seek(F, 12, f, MPD_RELATIVE, 3), 15);
    CHECK_INT(mpd_seek(F, 13, f, MPD_EXTEND, -2), 20);
    CHECK_INT(mpd_get(F, 14, f, a, 5, NULL), 2);
    CHECK(memcmp(a, "j\n", 2) == 0);
    mpd_close(F, 15, f);

    /* READWRITE: overwrite in place after a seek */
    f = mpd_open(F, 16, tmpname, (int)strlen(tmpname), MPD_READWRITE);
    mpd_seek(F, 17, f, MPD_ABSOLUTE, 3);
    mpd_writes(F, 18, f, 1, (mpd_val[]){VS("DEF")});
    CHECK_INT(mpd_where(F, 19, f), 6);
    mpd_seek(F, 20, f, MPD_ABSOLUTE, 0);
    char s[20];
    int len = 0;
    CHECK_INT(mpd_read(F, 21, f, 1, (mpd_dest[]){MPD_DS(s, 20, &len)}), 1);
    CHECK(len == 9 && memcmp(s, "123DEF789", 9) == 0);
    mpd_close(F, 22, f);

    CHECK(mpd_remove(tmpname, (int)strlen(tmpname)) == 1);
    CHECK(mpd_remove(tmpname, (int)strlen(tmpname)) == 0);
    CHECK(mpd_open(F, 23, tmpname, (int)strlen(tmpname), MPD_READ) == NULL);
    CHECK(mpd_open(F, 24, S("/nonexistent/dir/file"), MPD_WRITE) == NULL);
}

/* written data is visible to a second open of the file after flush */
static void flush_visible(void)
{
    mpd_file w = mpd_open(F, 1, tmpname, (int)strlen(tmpname), MPD_WRITE);
    mpd_write(F, 2, w, 1, (mpd_val[]){VS("'Twas bryllig")});
    mpd_flush(F, 3, w);
    mpd_file r = mpd_open(F, 4, tmpname, (int)strlen(tmpname), MPD_READ);
    char s[40];
    int len = 0;
    CHECK_INT(mpd_read(F, 5, r, 1, (mpd_dest[]){MPD_DS(s, 40, &len)}), 1);
    CHECK(len == 13 && memcmp(s, "'Twas bryllig", 13) == 0);
    CHECK_INT(mpd_read(F, 6, r, 1, (mpd_dest[]){MPD_DS(s, 40, &len)}), MPD_EOF);
    mpd_close(F, 7, r);
    mpd_close(F, 8, w);
    mpd_remove(tmpname, (int)strlen(tmpname));
}

static void noop_file(void)
{
    mpd_flush(F, 1, mpd_noop);
    mpd_close(F, 2, mpd_noop);
    CHECK_INT(mpd_seek(F, 3, mpd_noop, MPD_ABSOLUTE, 837), 0);
    CHECK_INT(mpd_seek(F, 4, mpd_noop, MPD_RELATIVE, 1234), 0);
    CHECK_INT(mpd_where(F, 5, mpd_noop), 0);
    CHECK(mpd_file_cfile(mpd_noop) == NULL);
    CHECK(mpd_file_cfile(mpd_stdout) == stdout);
    CHECK(mpd_file_cfile(NULL) == NULL);
}

static void args(void)
{
    char *argv[] = {"a.out", "TrUe", "  xy", "0", "1", "4.5 e7", "refrigerator", NULL};
    mpd_args_set(7, argv);
    CHECK_INT(mpd_numargs(), 6);
    _Bool b = 0;
    unsigned char c = '?';
    int n = 47;
    void *p = NULL;
    double r = 2.7183;
    CHECK_INT(mpd_getarg(F, 1, 1, &MPD_DB(&b)), 1);
    CHECK(b == 1);
    CHECK_INT(mpd_getarg(F, 1, 2, &MPD_DC(&c)), 1);
    CHECK(c == 'x');
    CHECK_INT(mpd_getarg(F, 1, 3, &MPD_DI(&n)), 1);
    CHECK(n == 0);
    CHECK_INT(mpd_getarg(F, 1, 4, &MPD_DP(&p)), 1);
    CHECK((uintptr_t)p == 1);
    CHECK_INT(mpd_getarg(F, 1, 5, &MPD_DR(&r)), 0);
    CHECK(r == 2.7183);
    CHECK_INT(mpd_getarg(F, 1, 2, &MPD_DI(&n)), 0);
    CHECK(n == 0);
    char s[22];
    int len = -1;
    CHECK_INT(mpd_getarg(F, 1, 0, &MPD_DS(s, 22, &len)), 5);
    CHECK(len == 5 && memcmp(s, "a.out", 5) == 0);
    CHECK_INT(mpd_getarg(F, 1, 6, &MPD_DS(s, 7, &len)), 7);
    CHECK(len == 7 && memcmp(s, "refrige", 7) == 0);
    char arr[4] = {'-', '-', '-', '-'};
    CHECK_INT(mpd_getarg(F, 1, 3, &MPD_DA(arr, 4)), 1);
    CHECK(memcmp(arr, "0---", 4) == 0);
    CHECK_INT(mpd_getarg(F, 1, 7, &MPD_DI(&n)), MPD_EOF);
    CHECK_INT(mpd_getarg(F, 1, -1, &MPD_DI(&n)), MPD_EOF);
}

static void math(void)
{
    CHECK(mpd_round(1.4) == 1 && mpd_round(1.5) == 2 && mpd_round(1.6) == 2 && mpd_round(2.5) == 2);
    CHECK(mpd_round(-1.5) == -2 && mpd_round(-2.5) == -2 && mpd_round(-1.4) == -1);
    char buf[MPD_FMT_MAX];
    mpd_fmt_real(buf, mpd_logb(2, 8));
    CHECK_STR(buf, "0.333333");
    mpd_fmt_real(buf, mpd_logb(100, 10));
    CHECK_STR(buf, "2.00000");
    CHECK(mpd_expb(2, 4) == 16);
    mpd_fmt_real(buf, mpd_atan2(47, 0));
    CHECK_STR(buf, "1.57080");
    mpd_fmt_real(buf, mpd_log(1));
    CHECK_STR(buf, "0.00000");

    /* random: in range (exact values: random.c) */
    double lo = 1, hi = 0, sum = 0;
    for (int k = 0; k < 100000; k++) {
        double x = mpd_random();
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += x;
    }
    CHECK(lo >= 0 && hi < 1 && lo < 0.001 && hi > 0.999);
    CHECK(fabs(sum / 100000 - 0.5) < 0.01);
    for (int k = 0; k < 1000; k++) {
        double x = mpd_random_range(89.7, 90.5);
        CHECK(x >= 89.7 && x < 90.5);
    }
    long long t0 = mpd_age();
    usleep(20000);
    long long t1 = mpd_age();
    CHECK(t0 >= 0 && t1 - t0 >= 15 && t1 - t0 < 5000);
}

static void *blocked_reader(void *arg)
{
    int i;
    (void)arg;
    mpd_read("r.mpd", 1, mpd_stdin, 1, (mpd_dest[]){MPD_DI(&i)});
    return NULL;
}

/* An abort while another thread waits for terminal input (holding stdin's
 * stdio lock) must still print its message and end the program. */
static void abort_while_reading(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        exit(2);
    dup2(fds[0], 0); /* input that never comes: the writer stays open */
    alarm(10);       /* a hang fails the test instead of blocking it */
    pthread_t t;
    pthread_create(&t, NULL, blocked_reader, NULL);
    usleep(100000);
    mpd_writes("r.mpd", 2, mpd_stdout, 1, (mpd_val[]){VS("pending output ")});
    mpd_rts_abort("r.mpd", 3, "something went wrong");
}

static void null_file_op(const char *which)
{
    if (!strcmp(which, "abort-reading"))
        abort_while_reading();
    if (!strcmp(which, "close-null"))
        mpd_close("n.mpd", 1, NULL);
    else if (!strcmp(which, "seek-null"))
        mpd_seek("n.mpd", 2, NULL, MPD_ABSOLUTE, 0);
    else if (!strcmp(which, "closed")) {
        mpd_file f = mpd_open("n.mpd", 3, S("/dev/null"), MPD_WRITE);
        mpd_close("n.mpd", 4, f);
        mpd_write("n.mpd", 5, f, 0, NULL);
    } else if (!strcmp(which, "close-stdout")) {
        mpd_write("n.mpd", 6, mpd_stdout, 1, (mpd_val[]){VS("before")});
        mpd_close("n.mpd", 7, mpd_stdout);
        mpd_write("n.mpd", 8, mpd_stdout, 1, (mpd_val[]){VS("after")});
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        null_file_op(argv[1]);
        return 0;
    }
    snprintf(tmpname, sizeof tmpname, "/tmp/mpd-io-files-%d", (int)getpid());
    seek_where();
    flush_visible();
    noop_file();
    args();
    math();
    CHECK_CASE(argv[0], "close-null", "", 0, 1,
               "RTS abort: file n.mpd, line 1:\n   operation attempted on null file\n");
    CHECK_CASE(argv[0], "seek-null", "", 0, 1,
               "RTS abort: file n.mpd, line 2:\n   operation attempted on null file\n");
    CHECK_CASE(argv[0], "closed", "", 0, 1, "RTS abort: file n.mpd, line 5:\n   file not open\n");
    CHECK_CASE(argv[0], "close-stdout", "", 0, 0, "before\nafter\n");
    CHECK_CASE(argv[0], "abort-reading", "", 0, 1,
               "pending output RTS abort: file r.mpd, line 3:\n   something went wrong\n");
    return report("io/files");
}
