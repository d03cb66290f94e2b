/* prog.c: program-level language support — stop(n), nap, string(x) of scalars. */
#include "mpd/abi/lang.h"
#include "mpd/rt.h"
#include "opcore.h"
#include <stdlib.h>
#include <time.h>

_Noreturn void mpd_lang_stop(int n)
{
    mpd_io_flush_all();
    mpd_exit(n);
}

void mpd_lang_nap(int ms)
{
    mpd_nap(ms);
    opk_check_killed(); /* its resource may have been destroyed meanwhile */
}

mpd_sv mpd_string_of_val(const char *f, int l, mpd_tmp **t, mpd_val v)
{
    enum { CAP = 512 };
    char *p = mpd_tmp_alloc(t, CAP + 1);
    int len = 0;
    mpd_string_of(f, l, p, CAP, &len, &v);
    return mpd_sv_lit(p, len);
}
