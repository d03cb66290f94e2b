/* builtin_args.c: MPD's numargs() and getarg(n, x) over the program's argv. */
#include <string.h>
#include "io_internal.h"

static int arg_count;
static char **arg_vector;

void mpd_args_set(int argc, char **argv)
{
    arg_count = argc;
    arg_vector = argv;
}

long long mpd_numargs(void)
{
    return arg_count > 0 ? arg_count - 1 : 0;
}

long long mpd_getarg(const char *file, int line, long long n, const mpd_dest *d)
{
    (void)file;
    (void)line;
    if (n < 0 || n >= arg_count || !arg_vector || !arg_vector[n])
        return MPD_EOF;
    const char *a = arg_vector[n];
    int len = (int)strlen(a);
    if (d->kind == MPD_V_STR) {
        /* as much as fits; a char array keeps its elements past the copy */
        int k = len < d->size ? len : d->size;
        io_store_chars(d, a, k, -1);
        return k;
    }
    return io_store_parsed(d, a, len);
}
