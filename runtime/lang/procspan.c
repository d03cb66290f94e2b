/* procspan.c: which proc a source line belongs to, for the blocked-process
 * report.  A proc called directly runs in its caller's process; MPD 1.0.1
 * names the process after the proc while it runs ("R.f").  Renaming the
 * process on every call would cost the call fast path a store and a
 * reload, so the name is found only when a report needs it: each
 * component registers its procs' line ranges at start-up, and the report
 * looks up the line where the process blocked. */
#include <string.h>
#include "opint.h"

static mpd_procspans *all; /* written by constructors, before any process */

void mpd_register_procspans(mpd_procspans *s)
{
    s->next = all;
    all = s;
}

const char *mpd_procspan_name(const char *file, int line)
{
    if (!file)
        return NULL;
    for (const mpd_procspans *s = all; s; s = s->next) {
        if (s->file != file && strcmp(s->file, file) != 0)
            continue;
        for (unsigned i = 0; i < s->n; i++)
            if (s->spans[i].lo <= line && line <= s->spans[i].hi)
                return s->spans[i].name;
    }
    return NULL;
}
