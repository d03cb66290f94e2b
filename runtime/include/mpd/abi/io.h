/* mpd/abi/io.h: MPD's I/O statements and its predefined functions that need no
 * compiler type knowledge (write, printf, read, scanf, files, getarg,
 * conversions, math, random) — printing exactly what MPD 1.0.1 printed.
 *
 * Conventions (plain C values only; the compiler decides its own storage):
 *  - MPD int    -> long long in this API (MPD 1.0.1 ints were 32 bits; %x, %o
 *                  and %u print a negative value that fits in 32 bits as the
 *                  32-bit pattern, as MPD did).
 *  - MPD real   -> double;  char -> int (0..255);  bool -> int (0/1).
 *  - strings read by the runtime: (const char *p, int len), no NUL needed.
 *  - strings written by the runtime: (char *data, int cap, int *len) where cap
 *    is the n of string[n] and *len receives the new length.  A char array
 *    is written with len == NULL: all cap elements are the array.
 *  - enum values are passed as ints (MPD prints an enum as its position).
 *  - Every call that can fail takes the MPD source position (file, line) and
 *    reports failures with mpd_rts_abort(), i.e. MPD's "RTS abort:" format.
 *
 * Output: write/writes/printf/put format a whole statement first and emit it
 * with one locked stdio call, so output statements of different processes do
 * not interleave.  mpd_stdout IS the C stdio stdout (externals that printf
 * interleave correctly).  On a terminal every output statement is flushed;
 * otherwise stdout is buffered but flushed before anything is written to
 * stderr, a terminal or a pipe, before input that has to wait, and at exit or
 * abort, so merged stdout/stderr (2>&1) keeps program order.
 *
 * Input: waiting for a terminal or pipe goes through mpd_blocking_call()
 * (mpd/rt.h), so the other MPD processes keep running. */
#ifndef MPD_IO_H
#define MPD_IO_H

#include <stdio.h>
#include "mpd/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- files ------------------------------------------------------------ */

/* An MPD `file` value.  NULL is MPD's `null` file: any operation on it aborts
 * with "operation attempted on null file".  mpd_noop is MPD's `noop` file:
 * writes are discarded, reads return EOF, seek/where return 0. */
typedef struct mpd_file_s *mpd_file;
extern mpd_file mpd_stdin, mpd_stdout, mpd_stderr, mpd_noop;

#define MPD_EOF (-1)                                         /* MPD's predefined EOF */
enum { MPD_READ = 0, MPD_WRITE = 1, MPD_READWRITE = 2 };     /* open modes */
enum { MPD_ABSOLUTE = 0, MPD_RELATIVE = 1, MPD_EXTEND = 2 }; /* seek types */

/* open(pathname, mode): NULL (MPD null) if the file cannot be opened. */
mpd_file mpd_open(const char *file, int line, const char *path, int pathlen, long long mode);
void mpd_close(const char *file, int line, mpd_file f); /* close(f) */
void mpd_flush(const char *file, int line, mpd_file f); /* flush(f) */
int mpd_remove(const char *path, int pathlen);          /* remove(): 1 ok, 0 failed */
long long mpd_seek(const char *file, int line, mpd_file f, long long stype, long long off);
long long mpd_where(const char *file, int line, mpd_file f);

/* The C stream behind a file, for passing `file` values to externals
 * (MPD passes a file to C as FILE *).  NULL for null and noop. */
FILE *mpd_file_cfile(mpd_file f);

/* Looks at file descriptors 0, 1 and 2 again (after dup2 redirected them):
 * whether each is a terminal or pipe decides how it is flushed and read. */
void mpd_io_std_reset(void);

/* Flush every MPD output stream (called at stop, exit and abort). */
void mpd_io_flush_all(void);

/* How input waits for a terminal, pipe or socket.  NULL (the default):
 * through mpd_blocking_call() inside an MPD process, directly elsewhere.
 * Set it to run fn(arg) some other way (it must return when fn has). */
extern void (*mpd_io_block_hook)(void (*fn)(void *arg), void *arg);

/* ---- values for output ------------------------------------------------- */

typedef enum {
    MPD_V_INT = 1, /* u.i  (also enum) */
    MPD_V_REAL,    /* u.r */
    MPD_V_CHAR,    /* u.c  0..255 */
    MPD_V_BOOL,    /* u.b  0/1 */
    MPD_V_STR,     /* u.s  string or char array */
    MPD_V_PTR      /* u.p  pointer (NULL prints ==null==) */
} mpd_kind;

typedef struct {
    int kind; /* an mpd_kind */
    union {
        long long i;
        double r;
        int c;
        int b;
        struct {
            const char *p;
            int len;
        } s;
        const void *p;
    } u;
} mpd_val;

/* Constructors for the generated code: e.g. mpd_write(F, L, mpd_stdout, 2,
 * (mpd_val[]){ MPD_VI(x), MPD_VS(p, n) }). */
#define MPD_VI(x) ((mpd_val){.kind = MPD_V_INT, .u.i = (long long)(x)})
#define MPD_VR(x) ((mpd_val){.kind = MPD_V_REAL, .u.r = (double)(x)})
#define MPD_VC(x) ((mpd_val){.kind = MPD_V_CHAR, .u.c = (unsigned char)(x)})
#define MPD_VB(x) ((mpd_val){.kind = MPD_V_BOOL, .u.b = !!(x)})
#define MPD_VS(p, n) ((mpd_val){.kind = MPD_V_STR, .u.s = {(p), (n)}})
#define MPD_VP(x) ((mpd_val){.kind = MPD_V_PTR, .u.p = (const void *)(x)})

/* write(f, v...): string(v) of each value, one blank between values, then a
 * newline.  writes(f, v...): the same with no blanks and no newline. */
void mpd_write(const char *file, int line, mpd_file f, int n, const mpd_val *v);
void mpd_writes(const char *file, int line, mpd_file f, int n, const mpd_val *v);
/* put(f, s): the characters of s, nothing else. */
void mpd_put(const char *file, int line, mpd_file f, const char *p, int len);

/* printf(f, fmt, v...) and sprintf(buf, fmt, v...) with MPD's conversions:
 * %d %i %o %q %x %X %u (int), %b %B (bool), %c (char), %s (string),
 * %f %e %E %g %G (real or int), %p (pointer, %08X style), %% — flags "-+ 0#",
 * width and precision; no h/l/L, no '*', no %n.  Errors abort with MPD's
 * messages; text formatted before the bad spec is written first, as in MPD. */
void mpd_printf(const char *file, int line, mpd_file f, const char *fmt, int fmtlen, int n,
                const mpd_val *v);
void mpd_sprintf(const char *file, int line, char *data, int cap, int *len, const char *fmt,
                 int fmtlen, int n, const mpd_val *v);

/* ---- destinations for input -------------------------------------------- */

/* Where an input call stores one value.
 *   MPD_V_INT : addr -> integer of `size` bytes (1, 2, 4 or 8), signed
 *   MPD_V_BOOL: addr -> integer/_Bool of `size` bytes, receives 0/1
 *   MPD_V_CHAR: addr -> unsigned char
 *   MPD_V_REAL: addr -> double
 *   MPD_V_PTR : addr -> void *
 *   MPD_V_STR : addr -> the characters; size = n of string[n] or the length
 *               of a char array; len -> current string length, or NULL for
 *               a char array.
 * A destination is left unchanged when its conversion fails. */
typedef struct {
    int kind; /* an mpd_kind */
    void *addr;
    int size;
    int *len;
} mpd_dest;

#define MPD_DI(a) ((mpd_dest){MPD_V_INT, (void *)(a), (int)sizeof *(a), 0})
#define MPD_DB(a) ((mpd_dest){MPD_V_BOOL, (void *)(a), (int)sizeof *(a), 0})
#define MPD_DC(a) ((mpd_dest){MPD_V_CHAR, (void *)(a), 1, 0})
#define MPD_DR(a) ((mpd_dest){MPD_V_REAL, (void *)(a), (int)sizeof(double), 0})
#define MPD_DP(a) ((mpd_dest){MPD_V_PTR, (void *)(a), (int)sizeof(void *), 0})
#define MPD_DS(d, cap, lenp) ((mpd_dest){MPD_V_STR, (void *)(d), (cap), (lenp)})
#define MPD_DA(d, n) ((mpd_dest){MPD_V_STR, (void *)(d), (n), 0})

/* read(f, x...): returns the number of values read, MPD_EOF if end of file
 * comes before the first one, 0 if the first value is malformed.  Strings
 * and char arrays take the rest of the current line; other types take the
 * next blank-separated token converted as by int(s), real(s)... */
long long mpd_read(const char *file, int line, mpd_file f, int n, const mpd_dest *d);
/* get(f, s): up to maxlength(s) raw characters; count or MPD_EOF. */
long long mpd_get(const char *file, int line, mpd_file f, char *data, int cap, int *len);
/* scanf(f, fmt, x...) / sscanf(buf, fmt, x...): items assigned, or MPD_EOF. */
long long mpd_scanf(const char *file, int line, mpd_file f, const char *fmt, int fmtlen, int n,
                    const mpd_dest *d);
long long mpd_sscanf(const char *file, int line, const char *buf, int buflen, const char *fmt,
                     int fmtlen, int n, const mpd_dest *d);

/* ---- command-line arguments --------------------------------------------- */

void mpd_args_set(int argc, char **argv); /* called once by main() */
long long mpd_numargs(void);
/* getarg(n, x): MPD_EOF if argument n does not exist; for strings and char
 * arrays the number of characters copied; otherwise 1 if the argument
 * converts to x's type, else 0 (x unchanged). */
long long mpd_getarg(const char *file, int line, long long n, const mpd_dest *d);

/* ---- conversions -------------------------------------------------------- */

/* How values print (write, string(x)): ints in decimal, reals like C's
 * "%#g" (6 significant digits, trailing zeros kept: 2.00000, 0.500000,
 * 1.00000e+10, 213334.), chars as themselves, bools as true/false, pointers
 * as ==null== or 8+ uppercase hex digits.  Each writes into buf (at least
 * MPD_FMT_MAX bytes, NUL-terminated) and returns the length. */
#define MPD_FMT_MAX 64
int mpd_fmt_int(char *buf, long long i);
int mpd_fmt_real(char *buf, double r);
int mpd_fmt_bool(char *buf, int b);
int mpd_fmt_ptr(char *buf, const void *p);
/* Any scalar mpd_val (not MPD_V_STR) by the rules above; chars give one
 * character. */
int mpd_fmt_val(char *buf, const mpd_val *v);

/* string(x) for a scalar value into a string[cap] variable; aborts with
 * "string of length N is too long to assign to string[cap]" if it does not
 * fit.  (For strings and chars the compiler copies the value itself.) */
void mpd_string_of(const char *file, int line, char *data, int cap, int *len, const mpd_val *v);

/* Conversions from strings; leading and trailing whitespace is ignored.
 * Bad input aborts with "illegal conversion: T(\"...\")". */
long long mpd_int_of_str(const char *file, int line, const char *p, int len);
double mpd_real_of_str(const char *file, int line, const char *p, int len);
int mpd_bool_of_str(const char *file, int line, const char *p, int len);
int mpd_char_of_str(const char *p, int len); /* first non-blank char or 0 */
void *mpd_ptr_of_str(const char *file, int line, const char *p, int len);
/* The same parses without aborting: return 1 and store on success, else 0. */
int mpd_parse_int(const char *p, int len, long long *out);
/* Out-of-range integer text: a decimal number saturates at MPD's 32-bit
 * bounds, an octal or hex one is a 32-bit pattern (-1 past 32 bits).  Used
 * by int(s), read, scanf and getarg alike. */
long long mpd_int_from_magnitude(unsigned long long mag, int neg, int base);
int mpd_digits_value(const char *p, int len, int base, unsigned long long *mag);
int mpd_parse_real(const char *p, int len, double *out);
int mpd_parse_bool(const char *p, int len, int *out);
int mpd_parse_ptr(const char *p, int len, void **out);

/* int(r) for a real: truncates toward zero; a result outside MPD's 32-bit
 * int range aborts with "illegal conversion: int(r)".  (char(i) is
 * mpd_char_of_int in mpd/abi/lang.h.) */
long long mpd_int_of_real(const char *file, int line, double r);

/* ---- math ---------------------------------------------------------------- */

double mpd_log(double x);             /* log(x) */
double mpd_logb(double x, double b);  /* log(x, b) */
double mpd_expb(double x, double b);  /* exp(x, b) = b**x */
double mpd_round(double x);           /* halves go to even */
double mpd_atan2(double x, double y); /* atan(x, y) */

/* ---- random numbers ------------------------------------------------------ */

double mpd_random(void);                       /* [0, 1) */
double mpd_random_ub(double ub);               /* [0, ub) */
double mpd_random_range(double lb, double ub); /* [lb, ub) */
void mpd_seed(double x);                       /* 0: irreproducible seed */

/* ---- time ----------------------------------------------------------------- */

long long mpd_age(void); /* ms since the program started */

#ifdef __cplusplus
}
#endif
#endif
