/* output.c: write, writes, put, printf and sprintf print byte for byte what
 * MPD 1.0.1 printed (cases from the suite's io/output, quick/jumble and
 * diag/runtime expected outputs), including the runtime errors of printf and
 * the order of stdout and stderr text when both go to one pipe. */
#include <stdint.h>
#include "mpd/abi/io.h"
#include "check.h"

#define F "runerrs.mpd"
#define S(lit) lit, (int)(sizeof lit - 1)
#define VS(lit) MPD_VS(lit, (int)(sizeof lit - 1))

static void output_mpd(void) /* the suite's io/output program */
{
    mpd_put(F, 1, mpd_stdout, S("this should be an x:"));
    mpd_put(F, 2, mpd_stdout, S("x"));
    mpd_put(F, 3, mpd_stdout, S("and here is the end of the line\n"));
    mpd_put(F, 4, mpd_stdout, S("\n"));
    char s[5] = {'a', 'b', 'c', 'd', 'e'};
    mpd_put(F, 5, mpd_stdout, s, 5);
    mpd_put(F, 6, mpd_stdout, S("fghijklmnop"));
    mpd_put(F, 7, mpd_stdout, S("qrstuvwxyz\n"));
    mpd_write(F, 8, mpd_stdout, 1, (mpd_val[]){VS("1")});
    mpd_write(F, 9, mpd_stdout, 0, NULL);
    mpd_write(F, 10, mpd_stdout, 1, (mpd_val[]){MPD_VI(2)});
    mpd_write(F, 11, mpd_stdout, 0, NULL);
    mpd_write(F, 12, mpd_stdout, 3, (mpd_val[]){MPD_VI(99), MPD_VI(88), MPD_VI(77)});
    mpd_write(F, 13, mpd_stdout, 2, (mpd_val[]){MPD_VB(1), MPD_VB(0)});
    const char *f = "123456789012";
    mpd_write(F, 14, mpd_stdout, 2, (mpd_val[]){MPD_VS(f, 12), VS(" yes")});
    mpd_write(F, 15, mpd_stdout, 3, (mpd_val[]){MPD_VI(100), MPD_VB(1), MPD_VS(f, 6)});
    mpd_write(F, 16, mpd_stdout, 1, (mpd_val[]){MPD_VP(NULL)});
    mpd_write(F, 17, mpd_stdout, 1, (mpd_val[]){MPD_VP((void *)(uintptr_t)12345)});
}

static void jumble_printf(void) /* printf cases of quick/jumble */
{
    mpd_printf(F, 1, mpd_stdout, S("%c %x %d %i %f %o %q\n"), 7,
               (mpd_val[]){MPD_VC(100), MPD_VI(100), MPD_VI(100), MPD_VI(100), MPD_VI(100),
                           MPD_VI(100), MPD_VI(100)});
    mpd_printf(F, 2, mpd_stdout, S("< %b %B %.1b %.1B %10b %-10b >\n"), 6,
               (mpd_val[]){MPD_VB(1), MPD_VB(0), MPD_VB(0), MPD_VB(1), MPD_VB(1), MPD_VB(0)});
    mpd_printf(F, 3, mpd_stdout, S("%-10s%-10s%-10s!\n"), 3,
               (mpd_val[]){VS("apples"), MPD_VS(&"blueberries"[4], 7), VS("cherries")});
    mpd_printf(F, 4, mpd_stdout, S("%f %.3f %e\n"), 3,
               (mpd_val[]){MPD_VR(3.14159), MPD_VR(3.14159), MPD_VR(3.14159)});
    mpd_printf(
        F, 5, mpd_stdout, S("%7.3f %7.3f %7.3f %7.3f %7.3f\n"), 5,
        (mpd_val[]){MPD_VR(88.9), MPD_VR(1.0), MPD_VR(721), MPD_VR(27.339), MPD_VR(-47.832)});
    mpd_printf(F, 6, mpd_stdout, S(":%08o:\n"), 1, (mpd_val[]){MPD_VI(012345)});
    mpd_printf(F, 7, mpd_stdout, S("%x %X %o %u|%5d|%-5d|%+d|%05d|%%|%p|%12p|\n"), 10,
               (mpd_val[]){MPD_VI(-1), MPD_VI(255), MPD_VI(-8), MPD_VI(-1), MPD_VI(42), MPD_VI(42),
                           MPD_VI(42), MPD_VI(-42), MPD_VP((void *)(uintptr_t)0xabc),
                           MPD_VP(NULL)});
    mpd_printf(F, 8, mpd_stdout, S("[%5c][%-3c][%.2s][%8.3s][%G][%E]\n"), 6,
               (mpd_val[]){MPD_VC('x'), MPD_VC('y'), VS("hello"), VS("world"), MPD_VR(1e-10),
                           MPD_VR(12345.678)});
    char line[8] = {'n', 'o', ' ', 'N', 'U', 'L', '!', '?'}; /* not NUL-terminated */
    mpd_printf(F, 9, mpd_stdout, S("%s|%10s\n"), 2, (mpd_val[]){MPD_VS(line, 7), MPD_VS(line, 2)});
}

/* the printf errors of diag/runtime, each after stderr text as in runerrs */
static void printf_error(int n)
{
    mpd_writes(F, 19, mpd_stderr, 3, (mpd_val[]){VS("\n"), MPD_VI(n), VS(": ")});
    char big[5000];
    memset(big, '*', sizeof big);
    switch (n) {
    case 11:
        mpd_writes(F, 53, NULL, 1, (mpd_val[]){VS("ab")});
        break;
    case 14:
        mpd_printf(F, 56, mpd_stdout, S("%12"), 0, NULL);
        break;
    case 15:
        mpd_printf(F, 57, mpd_stdout, S("%s %d"), 1, (mpd_val[]){VS("abc")});
        break;
    case 16:
        mpd_printf(F, 58, mpd_stdout, S("%d"), 1, (mpd_val[]){VS("abc")});
        break;
    case 17:
        mpd_printf(F, 59, mpd_stdout, S("%b"), 1, (mpd_val[]){VS("abc")});
        break;
    case 18:
        mpd_printf(F, 60, mpd_stdout, S("%c"), 1, (mpd_val[]){VS("abc")});
        break;
    case 19:
        mpd_printf(F, 61, mpd_stdout, S("%r"), 1, (mpd_val[]){MPD_VC('c')});
        break;
    case 20:
        mpd_printf(F, 62, mpd_stdout, S("%s"), 1, (mpd_val[]){MPD_VC('c')});
        break;
    case 21:
        mpd_printf(F, 63, mpd_stdout, S("%s"), 1, (mpd_val[]){MPD_VS(big, 5000)});
        break;
    case 22:
        mpd_printf(F, 64, mpd_stdout, S("%f"), 1, (mpd_val[]){VS("abc")});
        break;
    case 23:
        mpd_printf(F, 65, mpd_stdout, S("%p"), 1, (mpd_val[]){VS("a")});
        break;
    case 24:
        mpd_printf(F, 66, mpd_stdout, S("%h"), 1, (mpd_val[]){VS("a")});
        break;
    case 25:
        mpd_printf(F, 67, mpd_stdout, S("%A"), 1, (mpd_val[]){VS("abc")});
        break;
    case 26:
        mpd_printf(F, 68, mpd_stdout, S(" "), 1, (mpd_val[]){MPD_VI(2)});
        break;
    }
    exit(3);
}

static void ordering(void)
{
    mpd_write(F, 1, mpd_stdout, 1, (mpd_val[]){VS("out 1")});
    mpd_write(F, 2, mpd_stderr, 1, (mpd_val[]){VS("err 2")});
    mpd_writes(F, 3, mpd_stdout, 1, (mpd_val[]){VS("out 3 ")});
    mpd_printf(F, 4, mpd_stderr, S("err %d\n"), 1, (mpd_val[]){MPD_VI(4)});
    mpd_write(F, 5, mpd_stdout, 0, NULL);
    mpd_rts_warning("a warning");
    printf("C printf shares the stream\n");
    mpd_write(F, 7, mpd_noop, 1, (mpd_val[]){VS("never seen")});
    mpd_write(F, 8, mpd_stdout, 1, (mpd_val[]){VS("out 8")});
}

static void sprintf_cases(void)
{
    char buf[80];
    int len = -1;
    mpd_sprintf(F, 1, buf, 80, &len, S("%c %x %d %i %f %o %q"), 7,
                (mpd_val[]){MPD_VC(100), MPD_VI(100), MPD_VI(100), MPD_VI(100), MPD_VI(100),
                            MPD_VI(100), MPD_VI(100)});
    buf[len] = 0;
    CHECK_STR(buf, "d 64 100 100 100.000000 144 144");
    mpd_sprintf(F, 1, buf, 10, &len, S("%04x"), 1, (mpd_val[]){MPD_VI(255)});
    buf[len] = 0;
    CHECK_STR(buf, "00ff");
    mpd_sprintf(F, 1, buf, 10, &len, S(""), 0, NULL);
    CHECK_INT(len, 0);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "output"))
            output_mpd();
        else if (!strcmp(argv[1], "jumble"))
            jumble_printf();
        else if (!strcmp(argv[1], "ordering"))
            ordering();
        else if (!strcmp(argv[1], "sprintf-long")) {
            char b[5];
            int l;
            mpd_sprintf("s.mpd", 3, b, 5, &l, S("%d"), 1, (mpd_val[]){MPD_VI(123456)});
        } else
            printf_error(atoi(argv[1]));
        return 0;
    }
    sprintf_cases();
    CHECK_CASE(argv[0], "output", "", 0, 0,
               "this should be an x:xand here is the end of the line\n\n"
               "abcdefghijklmnopqrstuvwxyz\n1\n\n2\n\n99 88 77\ntrue false\n"
               "123456789012  yes\n100 true 123456\n==null==\n00003039\n");
    CHECK_CASE(argv[0], "jumble", "", 0, 0,
               "d 64 100 100 100.000000 144 144\n"
               "< true FALSE f T       true false      >\n"
               "apples    berries   cherries  !\n"
               "3.141590 3.142 3.141590e+00\n"
               " 88.900   1.000 721.000  27.339 -47.832\n"
               ":00012345:\n"
               "ffffffff FF 37777777770 4294967295|   42|42   |+42|-0042|%|00000ABC|    ==null==|\n"
               "[    x][y  ][he][     wor][1E-10][1.234568E+04]\n"
               "no NUL!|        no\n");
    CHECK_CASE(argv[0], "ordering", "", 0, 0,
               "out 1\nerr 2\nout 3 err 4\n\nRTS warning: a warning\n"
               "C printf shares the stream\nout 8\n");
    {
        char o[4096];
        CHECK_INT(run_case_to_file(argv[0], "ordering", o, sizeof o), 0);
        CHECK_STR(o, "out 1\nerr 2\nout 3 err 4\n\nRTS warning: a warning\n"
                     "C printf shares the stream\nout 8\n");
        CHECK_INT(run_case_to_file(argv[0], "15", o, sizeof o), 1);
        CHECK_STR(o, "\n15: abc RTS abort: file runerrs.mpd, line 57:\n"
                     "   insufficient argument list for format\n");
    }
    CHECK_CASE(argv[0], "sprintf-long", "", 0, 1,
               "RTS abort: file s.mpd, line 3:\n"
               "   string of length 6 is too long to assign to string[5]\n");
    static const char *const want[] = {
        [11] = "\n11: RTS abort: file runerrs.mpd, line 53:\n   operation attempted on null file\n",
        [14] = "\n14: RTS abort: file runerrs.mpd, line 56:\n   unterminated conversion spec "
               "(%...) in format\n",
        [15] = "\n15: abc RTS abort: file runerrs.mpd, line 57:\n   insufficient argument list for "
               "format\n",
        [16] = "\n16: RTS abort: file runerrs.mpd, line 58:\n   format calls for an int argument\n",
        [17] = "\n17: RTS abort: file runerrs.mpd, line 59:\n   format calls for a bool argument\n",
        [18] = "\n18: RTS abort: file runerrs.mpd, line 60:\n   format calls for a char argument\n",
        [19] = "\n19: RTS abort: file runerrs.mpd, line 61:\n   string argument expected\n",
        [20] =
            "\n20: RTS abort: file runerrs.mpd, line 62:\n   format calls for a string argument\n",
        [21] = "\n21: RTS abort: file runerrs.mpd, line 63:\n   illegal string length for %s\n",
        [22] = "\n22: RTS abort: file runerrs.mpd, line 64:\n   format calls for a real argument\n",
        [23] =
            "\n23: RTS abort: file runerrs.mpd, line 65:\n   format calls for a pointer argument\n",
        [24] = "\n24: RTS abort: file runerrs.mpd, line 66:\n   illegal size modifier (h/l/L) in "
               "format spec\n",
        [25] = "\n25: RTS abort: file runerrs.mpd, line 67:\n   illegal specification character in "
               "format\n",
        [26] = "\n26:  RTS abort: file runerrs.mpd, line 68:\n   too many arguments for format\n",
    };
    for (int n = 11; n <= 26; n++) {
        if (!want[n])
            continue;
        char name[8];
        snprintf(name, sizeof name, "%d", n);
        CHECK_CASE(argv[0], name, "", 0, 1, want[n]);
    }
    return report("io/output");
}
