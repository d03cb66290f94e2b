/* input.c: read, get, scanf and sscanf.  Own cases check the rules derived
 * from MPD 1.0.1 (line/token reading, what is consumed, EOF and failure
 * counts); when the MPD verification suite is present (../shared or
 * $MPD_VSUITE) its io/input and io/read programs are replayed in C against
 * their expected outputs, with stdin both a pipe and a regular file. */
#include <stdint.h>
#include "mpd/abi/io.h"
#include "check.h"

#define F "t.mpd"
#define S(lit) lit, (int)(sizeof lit - 1)
#define VS(lit) MPD_VS(lit, (int)(sizeof lit - 1))

static void edit(char *p, int n)
{
    for (int k = 0; k < n; k++)
        if (p[k] == '\n')
            p[k] = '|';
}

/* the suite's io/input/reads.mpd, statement for statement */
static void reads(void)
{
    int i = 0, n;
    _Bool b = 0;
    unsigned char c = 'x';
    char a[10], s[10] = "--", l[100];
    int slen = 2, llen = 0;
    memset(a, 'z', 10);
    n = (int)mpd_read(F, 1, mpd_stdin, 1, (mpd_dest[]){MPD_DS(l, 100, &llen)});
    mpd_writes(F, 2, mpd_stdout, 3,
               (mpd_val[]){
                   MPD_VI(n),
                   VS(":  "),
                   MPD_VS(l, llen),
               });
    mpd_writes(F, 2, mpd_stdout, 1, (mpd_val[]){VS("\n")});
    n = (int)mpd_read(
        F, 3, mpd_stdin, 5,
        (mpd_dest[]){MPD_DI(&i), MPD_DC(&c), MPD_DB(&b), MPD_DA(a, 10), MPD_DS(s, 10, &slen)});
    edit(a, 10), edit(s, slen);
    mpd_writes(F, 4, mpd_stdout, 12,
               (mpd_val[]){MPD_VI(n), VS(":  "), MPD_VI(i), VS(" '"), MPD_VC(c), VS("' "),
                           MPD_VB(b), VS(" '"), MPD_VS(a, 10), VS("'"), VS(" \""),
                           MPD_VS(s, slen)});
    mpd_writes(F, 4, mpd_stdout, 1, (mpd_val[]){VS("\"\n")});
    n = (int)mpd_read(F, 5, mpd_stdin, 1, (mpd_dest[]){MPD_DA(a, 10)});
    edit(a, 10);
    mpd_writes(F, 6, mpd_stdout, 4, (mpd_val[]){MPD_VI(n), VS(":  '"), MPD_VS(a, 10), VS("'\n")});
    n = (int)mpd_read(F, 7, mpd_stdin, 1, (mpd_dest[]){MPD_DS(s, 10, &slen)});
    edit(s, slen);
    mpd_writes(F, 8, mpd_stdout, 4,
               (mpd_val[]){MPD_VI(n), VS(":  \""), MPD_VS(s, slen), VS("\"\n")});
    n = (int)mpd_get(F, 9, mpd_stdin, a, 10, NULL);
    edit(a, 10);
    mpd_writes(F, 10, mpd_stdout, 4, (mpd_val[]){MPD_VI(n), VS(":  '"), MPD_VS(a, 10), VS("'\n")});
    n = (int)mpd_get(F, 11, mpd_stdin, s, 10, &slen);
    edit(s, slen);
    mpd_writes(F, 12, mpd_stdout, 4,
               (mpd_val[]){MPD_VI(n), VS(":  \""), MPD_VS(s, slen), VS("\"\n")});
}

/* the suite's io/read/read.mpd loop, reading stdin instead of a named file */
static void read_types(void)
{
    _Bool b = 0;
    unsigned char c = 0;
    int n = 0;
    void *p = NULL;
    double r = 0;
    for (;;) {
        long long rc = mpd_read(F, 1, mpd_stdin, 1, (mpd_dest[]){MPD_DB(&b)});
        mpd_write(F, 1, mpd_stdout, 2, (mpd_val[]){MPD_VI(rc), MPD_VB(b)});
        if (rc == MPD_EOF)
            return;
        rc = mpd_read(F, 2, mpd_stdin, 1, (mpd_dest[]){MPD_DC(&c)});
        mpd_write(F, 2, mpd_stdout, 2, (mpd_val[]){MPD_VI(rc), MPD_VC(c)});
        rc = mpd_read(F, 3, mpd_stdin, 1, (mpd_dest[]){MPD_DI(&n)});
        mpd_write(F, 3, mpd_stdout, 2, (mpd_val[]){MPD_VI(rc), MPD_VI(n)});
        rc = mpd_read(F, 4, mpd_stdin, 1, (mpd_dest[]){MPD_DP(&p)});
        mpd_write(F, 4, mpd_stdout, 2, (mpd_val[]){MPD_VI(rc), MPD_VP(p)});
        rc = mpd_read(F, 5, mpd_stdin, 1, (mpd_dest[]){MPD_DR(&r)});
        mpd_write(F, 5, mpd_stdout, 2, (mpd_val[]){MPD_VI(rc), MPD_VR(r)});
        mpd_write(F, 6, mpd_stdout, 0, NULL);
    }
}

/* scanf from stdin: the appendix's "3BAGELS" example and friends */
static void scan_stdin(void)
{
    int i = 7, j = 0;
    char rest[20];
    int rlen = 0;
    long long n = mpd_scanf(F, 1, mpd_stdin, S("%i"), 1, (mpd_dest[]){MPD_DI(&i)});
    mpd_write(F, 2, mpd_stdout, 2, (mpd_val[]){MPD_VI(n), MPD_VI(i)});
    n = mpd_scanf(F, 3, mpd_stdin, S("%s %d"), 2,
                  (mpd_dest[]){MPD_DS(rest, 20, &rlen), MPD_DI(&j)});
    mpd_write(F, 4, mpd_stdout, 3, (mpd_val[]){MPD_VI(n), MPD_VS(rest, rlen), MPD_VI(j)});
    n = mpd_scanf(F, 5, mpd_stdin, S("%d"), 1, (mpd_dest[]){MPD_DI(&j)});
    mpd_write(F, 6, mpd_stdout, 2, (mpd_val[]){MPD_VI(n), MPD_VI(j)});
}

static void own_read_cases(const char *self)
{
    /* tokens: a bad one is consumed with the blanks after it up to the newline */
    CHECK_CASE(self, "reads",
               "comment\n  47163\tc three four five six seven eight nine ten eleven twelve\n", 0, 0,
               "1:  comment\n2:  47163 'c' false 'zzzzzzzzzz' \"--\"\n1:  'four five '\n"
               "1:  \"six seven \"\n10:  'eight nine'\n10:  \" ten eleve\"\n");
    /* a line exactly as long as the variable: its newline goes with it */
    CHECK_CASE(self, "reads", "c\n 5 Q t 0123456789\nabcdefghij\nABCDEFGHIJ\nxy\n", 1, 0,
               "1:  c\n5:  5 'Q' true '0123456789' \"abcdefghij\"\n1:  'ABCDEFGHIJ'\n1:  \"xy\"\n"
               "-1:  'ABCDEFGHIJ'\n-1:  \"xy\"\n");
    /* end of file everywhere */
    CHECK_CASE(self, "reads", "", 0, 0,
               "-1:  \n-1:  0 'x' false 'zzzzzzzzzz' \"--\"\n-1:  'zzzzzzzzzz'\n-1:  \"--\"\n"
               "-1:  'zzzzzzzzzz'\n-1:  \"--\"\n");
    /* a last line without newline; a bad first token gives 0 */
    CHECK_CASE(self, "reads", "x\nBAD EOF", 0, 0,
               "1:  x\n0:  0 'x' false 'zzzzzzzzzz' \"--\"\n1:  'EOF       '\n-1:  \"--\"\n"
               "-1:  'EOF       '\n-1:  \"--\"\n");
    CHECK_CASE(self, "types", "t c 0 ==null== -2\nfalse k 12afx abcdef .5e1\nfoo\n", 0, 0,
               "1 true\n1 c\n1 0\n1 ==null==\n1 -2.00000\n\n"
               "1 false\n1 k\n1 4783\n1 00ABCDEF\n1 5.00000\n\n"
               "0 false\n-1 k\n-1 4783\n-1 00ABCDEF\n-1 5.00000\n\n-1 false\n");
    CHECK_CASE(self, "scan", "3BAGELS 12\n", 0, 0, "0 7\n2 GELS 12\n-1 12\n");
    /* "0x" is a whole MPD literal (hex 0): the field ends there */
    CHECK_CASE(self, "scan", "0x1\n", 1, 0, "1 0\n1 1 0\n-1 0\n");
}

static void sscanf_cases(void)
{
    int n = 0, k = 0;
    char s[12];
    int slen = 0;
    double x = 0;
    CHECK_INT(mpd_sscanf(F, 1, S("d 64 100 100 100.000000 144 144"), S("d %d %7s %f"), 3,
                         (mpd_dest[]){MPD_DI(&n), MPD_DS(s, 12, &slen), MPD_DR(&x)}),
              3);
    CHECK_INT(n, 64);
    CHECK_INT(slen, 3);
    CHECK(memcmp(s, "100", 3) == 0);
    CHECK(x == 100.0);
    /* field widths cut strings; the rest is left for the next field */
    CHECK_INT(mpd_sscanf(F, 2, S("abraham"), S("%6s%c"), 2,
                         (mpd_dest[]){MPD_DS(s, 12, &slen), MPD_DS(s + 8, 1, &k)}),
              2);
    CHECK(slen == 6 && memcmp(s, "abraha", 6) == 0 && s[8] == 'm');
    /* a string longer than the variable is cut silently */
    CHECK_INT(mpd_sscanf(F, 3, S("  verylongword"), S("%s"), 1, (mpd_dest[]){MPD_DS(s, 4, &slen)}),
              1);
    CHECK(slen == 4 && memcmp(s, "very", 4) == 0);
    /* octal and hex with their MPD suffixes, bools, pointers, suppression */
    int o = 0, h = 0;
    _Bool b1 = 0, b2 = 1;
    void *p = (void *)1, *q = NULL;
    CHECK_INT(mpd_sscanf(F, 4, S("17q ffX TRUE false ==null== 803344ff 99"),
                         S("%o %x %b %b %p %p %*d"), 6,
                         (mpd_dest[]){MPD_DI(&o), MPD_DI(&h), MPD_DB(&b1), MPD_DB(&b2), MPD_DP(&p),
                                      MPD_DP(&q)}),
              6);
    CHECK(o == 15 && h == 255 && b1 == 1 && b2 == 0 && p == NULL && (uintptr_t)q == 0x803344ffu);
    /* %c into a char, %[...] scansets, literal characters and %% */
    unsigned char c1 = 0;
    char set[10];
    int setlen = 0;
    CHECK_INT(mpd_sscanf(F, 5, S("x=aabbcz 50%"), S("%c=%[abc]z %d%%"), 3,
                         (mpd_dest[]){MPD_DC(&c1), MPD_DS(set, 10, &setlen), MPD_DI(&k)}),
              3);
    CHECK(c1 == 'x' && setlen == 5 && memcmp(set, "aabbc", 5) == 0 && k == 50);
    CHECK_INT(mpd_sscanf(F, 6, S("ab"), S("%[^b]"), 1, (mpd_dest[]){MPD_DS(set, 10, &setlen)}), 1);
    CHECK(setlen == 1 && set[0] == 'a');
    /* EOF before any conversion; a mismatch after one */
    CHECK_INT(mpd_sscanf(F, 7, S("   "), S("%d"), 1, (mpd_dest[]){MPD_DI(&k)}), MPD_EOF);
    CHECK_INT(mpd_sscanf(F, 8, S("5 x"), S("%d %d"), 2, (mpd_dest[]){MPD_DI(&n), MPD_DI(&k)}), 1);
    CHECK_INT(mpd_sscanf(F, 9, S("5"), S("%d %d"), 2, (mpd_dest[]){MPD_DI(&n), MPD_DI(&k)}), 1);
    CHECK_INT(mpd_sscanf(F, 10, S("-2.5e+3x"), S("%f"), 1, (mpd_dest[]){MPD_DR(&x)}), 1);
    CHECK(x == -2500.0);
}

static int scan_error(const char *which)
{
    int i;
    double r;
    if (!strcmp(which, "scan-type"))
        mpd_sscanf("s.mpd", 4, S("12"), S("%f"), 1, (mpd_dest[]){MPD_DI(&i)});
    else if (!strcmp(which, "scan-few"))
        mpd_sscanf("s.mpd", 5, S("12 13"), S("%d %d"), 1, (mpd_dest[]){MPD_DI(&i)});
    else if (!strcmp(which, "scan-many"))
        mpd_sscanf("s.mpd", 6, S("12"), S("%d"), 2, (mpd_dest[]){MPD_DI(&i), MPD_DR(&r)});
    else if (!strcmp(which, "read-null"))
        mpd_read("s.mpd", 7, NULL, 1, (mpd_dest[]){MPD_DI(&i)});
    return 0;
}

static void noop_cases(void)
{
    int i = 3;
    char s[10];
    int slen = 0;
    CHECK_INT(mpd_read(F, 1, mpd_noop, 2, (mpd_dest[]){MPD_DI(&i), MPD_DS(s, 10, &slen)}), MPD_EOF);
    CHECK_INT(mpd_get(F, 2, mpd_noop, s, 10, &slen), MPD_EOF);
    CHECK_INT(mpd_scanf(F, 3, mpd_noop, S("%d"), 1, (mpd_dest[]){MPD_DI(&i)}), MPD_EOF);
    CHECK_INT(i, 3);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[3][65536];
    static int k;
    char *b = buf[k++ % 3];
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static void suite_cases(const char *self)
{
    const char *dirs[] = {getenv("MPD_VSUITE"), "../../shared/mpd-vsuite", "../shared/mpd-vsuite",
                          "/work/shared/mpd-vsuite"};
    const char *suite = NULL;
    char path[512];
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs && !suite; k++) {
        if (!dirs[k])
            continue;
        snprintf(path, sizeof path, "%s/io/input/input0.std", dirs[k]);
        if (access(path, R_OK) == 0)
            suite = dirs[k];
    }
    if (!suite) {
        printf("verification suite not found: its io/input cases skipped\n");
        return;
    }
    for (int k = 0; k <= 6; k++) {
        char ipath[512], spath[512];
        snprintf(ipath, sizeof ipath, "%s/io/input/input%d", suite, k);
        snprintf(spath, sizeof spath, "%s/io/input/input%d.std", suite, k);
        char *in = slurp(ipath), *want = slurp(spath);
        CHECK(in && want);
        if (in && want) {
            CHECK_CASE(self, "reads", in, 0, 0, want);
            CHECK_CASE(self, "reads", in, 1, 0, want);
        }
    }
    char *in = slurp(strcat(strcpy(path, suite), "/io/read/Read1"));
    char *want = slurp(strcat(strcpy(path, suite), "/io/read/Read1.std"));
    CHECK(in && want);
    if (in && want) {
        CHECK_CASE(self, "types", in, 1, 0, want);
        CHECK_CASE(self, "types", in, 0, 0, want);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "reads"))
            reads();
        else if (!strcmp(argv[1], "types"))
            read_types();
        else if (!strcmp(argv[1], "scan"))
            scan_stdin();
        else
            return scan_error(argv[1]);
        return 0;
    }
    own_read_cases(argv[0]);
    sscanf_cases();
    noop_cases();
    CHECK_CASE(argv[0], "scan-type", "", 0, 1,
               "RTS abort: file s.mpd, line 4:\n   arguments do not match format string\n");
    CHECK_CASE(argv[0], "scan-few", "", 0, 1,
               "RTS abort: file s.mpd, line 5:\n   arguments do not match format string\n");
    CHECK_CASE(argv[0], "scan-many", "", 0, 1,
               "RTS abort: file s.mpd, line 6:\n   more arguments than fields in format string\n");
    CHECK_CASE(argv[0], "read-null", "", 0, 1,
               "RTS abort: file s.mpd, line 7:\n   operation attempted on null file\n");
    suite_cases(argv[0]);
    return report("io/input");
}
