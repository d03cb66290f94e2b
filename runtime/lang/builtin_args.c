/* builtin_args.c: MPD's numargs() and getarg(n, x) over the program's argv. */
#include <string.h>
#include "io_internal.h"
#include "mpd/rt.h"

static int arg_count;
static char **arg_vector;

void mpd_args_set(int argc, char **argv)
{
    arg_count = argc;
    arg_vector = argv;
}

/* The command line given to mpd_args_set, else the one the runtime got. */
static int args(char ***v)
{
    if (arg_vector) {
        *v = arg_vector;
        return arg_count;
    }
    *v = mpd_argv();
    return *v ? mpd_argc() : 0;
}

long long mpd_numargs(void)
{
    char **v;
    int n = args(&v);
    return n > 0 ? n - 1 : 0;
}

long long mpd_getarg(const char *file, int line, long long n, const mpd_dest *d)
{
    (void)file;
    (void)line;
    char **v;
    int count = args(&v);
    if (n < 0 || n >= count || !v[n])
        return MPD_EOF;
    const char *a = v[n];
    int len = (int)strlen(a);
    if (d->kind == MPD_V_STR) {
        /* as much as fits; a char array keeps its elements past the copy */
        int k = len < d->size ? len : d->size;
        io_store_chars(d, a, k, -1);
        return k;
    }
    return io_store_parsed(d, a, len);
}
