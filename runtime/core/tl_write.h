/* tl_write.h: writing the collected timeline out (tl_write.c): one
 * self-contained HTML page, or Chrome/Perfetto trace-event JSON. */
#ifndef MPD_TL_WRITE_H
#define MPD_TL_WRITE_H
#include <stddef.h>
#include <stdint.h>
#include "core/timeline.h"

/* One event as collected: the record, the VP that wrote it (-1: a helper
 * thread), its time in ns from the start. */
typedef struct tl_rec {
    tl_ev e;
    int vp;
    size_t seq; /* collection order: ties of time keep it */
    int64_t ns;
} tl_rec;

typedef struct tl_log {
    const tl_rec *v; /* by time */
    size_t n;
    int nvp;
    int status;
    uint64_t dropped;      /* events overwritten (MPD_TIMELINE_MAX) */
    int64_t complete_from; /* ns: every thread's events are there from here */
    const char *path;      /* where to write; .json: the JSON export */
} tl_log;

/* Writes the log to log->path; 0 on success. */
int mpd__tl_write(const tl_log *log);
#endif
