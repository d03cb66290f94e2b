/* tl_write.c: the collected timeline written out, once, at the end.
 *
 * Two forms, by the file's name:
 *  - NAME.json: Chrome/Perfetto trace-event JSON (chrome://tracing,
 *    ui.perfetto.dev): one track per VP with what ran on it, one per
 *    process with its running and blocked spans, flow arrows from each send
 *    or call to the receive that took it, instants for the rest.
 *  - anything else: one self-contained HTML page -- the viewer of
 *    timeline/viewer.html (inline CSS and JS, no network), embedded in the
 *    library by tl_page.S, with the log and the program's source inlined as
 *    a JSON object where the page has its marker.
 * Neither is on a hot path: formatting happens here, after the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/tl_write.h"
#include "mpd/abi/ops.h"

extern const char mpd__tl_page[]; /* tl_page.S: timeline/viewer.html */
#define PAGE_MARKER "/*@TIMELINE-DATA@*/"

/* ---- JSON strings ---- */

static void jstr(FILE *f, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
            /* < > &: the JSON sits inside a <script> element */
            fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else {
            putc(c, f);
        }
    }
    putc('"', f);
}

static void jcstr(FILE *f, const char *s)
{
    jstr(f, s ? s : "", s ? strlen(s) : 0);
}

/* ---- source files: by pointer, then by name ---- */

typedef struct files {
    const char **v;
    size_t n, cap;
} files;

static int file_index(files *fs, const char *p)
{
    if (!p)
        return -1;
    for (size_t i = 0; i < fs->n; i++)
        if (fs->v[i] == p || strcmp(fs->v[i], p) == 0)
            return (int)i;
    if (fs->n == fs->cap) {
        size_t cap = fs->cap ? 2 * fs->cap : 16;
        const char **v = realloc(fs->v, cap * sizeof *v);
        if (!v)
            return -1;
        fs->v = v;
        fs->cap = cap;
    }
    fs->v[fs->n] = p;
    return (int)fs->n++;
}

/* A source file's text, when it is there to read (at most 4 MiB). */
static char *read_source(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0 || n >= (4u << 20))
            break;
        if (n == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb)
                break;
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* ---- processes: names and creation, from the kept records ---- */

typedef struct proc {
    const char *name;
    uint32_t creator;
    int64_t created;
    int file, line;
    int seen;
    /* the JSON export's running state */
    int64_t run_from, block_from;
    int running_vp, blocked;
    uint64_t why;
} proc;

typedef struct procs {
    proc *v;
    size_t n;
} procs;

static proc *proc_at(procs *ps, uint32_t pid)
{
    if (pid == 0)
        return NULL;
    if (pid >= ps->n) {
        size_t n = ps->n ? ps->n : 64;
        while (n <= pid)
            n *= 2;
        proc *v = realloc(ps->v, n * sizeof *v);
        if (!v)
            return NULL;
        memset(v + ps->n, 0, (n - ps->n) * sizeof *v);
        ps->v = v;
        ps->n = n;
    }
    proc *p = &ps->v[pid];
    if (!p->seen) {
        p->seen = 1;
        p->file = -1;
        p->running_vp = -1;
        p->created = -1;
    }
    return p;
}

static void gather_procs(const tl_log *log, procs *ps, files *fs)
{
    for (size_t i = 0; i < log->n; i++) {
        const tl_ev *e = &log->v[i].e;
        int k = (int)(e->kl >> 24);
        if (k == TL_CREATE) {
            proc *p = proc_at(ps, e->pid);
            if (p) {
                p->creator = (uint32_t)e->a;
                p->created = log->v[i].ns;
                p->file = file_index(fs, e->file);
                p->line = (int)(e->kl & 0xffffff);
            }
        } else if (k == TL_NAME) {
            proc *p = proc_at(ps, e->pid);
            if (p)
                p->name = (const char *)(uintptr_t)e->a;
        } else if (e->pid) {
            proc_at(ps, e->pid);
        }
        if (e->file)
            file_index(fs, e->file);
    }
}

static const char *pname(procs *ps, uint32_t pid)
{
    return pid < ps->n && ps->v[pid].name ? ps->v[pid].name : "?";
}

/* ---- the HTML page ---- */

static void write_data(FILE *f, const tl_log *log, procs *ps, files *fs)
{
    int64_t end = log->n ? log->v[log->n - 1].ns : 0;
    fprintf(f,
            "{\"nvp\":%d,\"status\":%d,\"dropped\":%llu,\"from\":%lld,\"end\":%lld,\n\"files\":[",
            log->nvp, log->status, (unsigned long long)log->dropped, (long long)log->complete_from,
            (long long)end);
    for (size_t i = 0; i < fs->n; i++) {
        if (i)
            putc(',', f);
        jcstr(f, fs->v[i]);
    }
    fputs("],\n\"src\":[", f);
    for (size_t i = 0; i < fs->n; i++) {
        size_t len = 0;
        char *s = read_source(fs->v[i], &len);
        if (i)
            putc(',', f);
        if (s)
            jstr(f, s, len);
        else
            fputs("null", f);
        free(s);
    }
    fputs("],\n\"procs\":[", f);
    int first = 1;
    for (size_t pid = 1; pid < ps->n; pid++) {
        proc *p = &ps->v[pid];
        if (!p->seen)
            continue;
        fprintf(f, "%s[%zu,", first ? "" : ",\n", pid);
        first = 0;
        jcstr(f, p->name ? p->name : "?");
        fprintf(f, ",%u,%lld,%d,%d]", p->creator, (long long)p->created, p->file, p->line);
    }
    fputs("],\n\"ev\":[", f);
    first = 1;
    for (size_t i = 0; i < log->n; i++) {
        const tl_ev *e = &log->v[i].e;
        int k = (int)(e->kl >> 24);
        if (k == TL_CREATE || k == TL_NAME)
            continue; /* in procs */
        fprintf(f, "%s[%lld,%d,%d,%u,", first ? "" : ",\n", (long long)log->v[i].ns, log->v[i].vp,
                k, e->pid);
        first = 0;
        switch (k) {
        case TL_BLOCK: /* why, then the object (an op's address: an id) */
            fprintf(f, "%llu,%d,%d,%llu]", (unsigned long long)(e->a >> 56),
                    file_index(fs, e->file), (int)(e->kl & 0xffffff),
                    (unsigned long long)(e->a & ((1ull << 48) - 1)));
            break;
        case TL_WAKE: /* woken pid, then by whom (TL_BY_*) */
            fprintf(f, "%u,-1,0,%u]", (uint32_t)e->a, (uint32_t)(e->a >> 32));
            break;
        case TL_RESCREATE:
            jcstr(f, (const char *)(uintptr_t)e->a);
            fprintf(f, ",%d,%d]", file_index(fs, e->file), (int)(e->kl & 0xffffff));
            break;
        case TL_SEMDECL: { /* the op, its index in its object, the object's op table */
            uint64_t op = e->a & ((1ull << 48) - 1), idx = e->a >> 48;
            fprintf(f, "%llu,%d,%d,%u,%llu]", (unsigned long long)op, file_index(fs, e->file),
                    (int)(e->kl & 0xffffff), (unsigned)idx,
                    (unsigned long long)(op - idx * sizeof(mpd_op)));
            break;
        }
        default:
            fprintf(f, "%llu,%d,%d]", (unsigned long long)e->a, file_index(fs, e->file),
                    (int)(e->kl & 0xffffff));
        }
    }
    fputs("]}", f);
}

static int write_html(FILE *f, const tl_log *log, procs *ps, files *fs)
{
    const char *m = strstr(mpd__tl_page, PAGE_MARKER);
    if (!m)
        return -1;
    fwrite(mpd__tl_page, 1, (size_t)(m - mpd__tl_page), f);
    write_data(f, log, ps, fs);
    fputs(m + strlen(PAGE_MARKER), f);
    return 0;
}

/* ---- Chrome/Perfetto trace-event JSON ---- */

enum { JPID_VPS = 1, JPID_PROCS = 2 };
static const char *const why_names[TL_NWHY] = {
    "park", "P (semaphore)", "in", "receive", "call", "I/O", "nap", "wait", "join",
};

static const char *why_name(uint64_t a)
{
    unsigned w = (unsigned)(a >> 56);
    return w < TL_NWHY ? why_names[w] : "?";
}

static void jloc(FILE *f, files *fs, const tl_ev *e)
{
    int fi = file_index(fs, e->file);
    if (fi >= 0) {
        fputs(",\"args\":{\"at\":", f);
        char buf[512];
        snprintf(buf, sizeof buf, "%s:%d", fs->v[fi], (int)(e->kl & 0xffffff));
        jcstr(f, buf);
        putc('}', f);
    }
}

#define US(ns) ((double)(ns) / 1000.0)

static void span(FILE *f, int jpid, long tid, const char *name, int64_t from, int64_t to,
                 const char *cat)
{
    fprintf(
        f,
        ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"%s\",\"name\":",
        jpid, tid, US(from), US(to > from ? to - from : 0), cat);
    jcstr(f, name);
    putc('}', f);
}

static void instant(FILE *f, long tid, const char *name, int64_t t, files *fs, const tl_ev *e)
{
    fprintf(f,
            ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%ld,\"ts\":%.3f,\"name\":", JPID_PROCS,
            tid, US(t));
    jcstr(f, name);
    if (e)
        jloc(f, fs, e);
    putc('}', f);
}

static int write_json(FILE *f, const tl_log *log, procs *ps, files *fs)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"VPs\"}}",
            JPID_VPS);
    fprintf(f,
            ",\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"MPD "
            "processes\"}}",
            JPID_PROCS);
    for (int vp = 0; vp < log->nvp; vp++)
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{"
                "\"name\":\"VP %d\"}}",
                JPID_VPS, vp, vp);
    for (size_t pid = 1; pid < ps->n; pid++) {
        if (!ps->v[pid].seen)
            continue;
        char buf[300];
        snprintf(buf, sizeof buf, "%s #%zu", pname(ps, (uint32_t)pid), pid);
        fprintf(
            f,
            ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%zu,\"name\":\"thread_name\",\"args\":{\"name\":",
            JPID_PROCS, pid);
        jcstr(f, buf);
        fputs("}}", f);
        fprintf(f,
                ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%zu,\"name\":\"thread_sort_index\",\"args\":{"
                "\"sort_index\":%zu}}",
                JPID_PROCS, pid, pid);
    }
    int nvp = log->nvp > 0 ? log->nvp : 1;
    uint32_t *vp_cur = calloc((size_t)nvp, sizeof *vp_cur);
    int64_t *vp_from = calloc((size_t)nvp, sizeof *vp_from);
    if (!vp_cur || !vp_from) {
        free(vp_cur);
        free(vp_from);
        return -1;
    }
    int64_t end = log->n ? log->v[log->n - 1].ns : 0;
    for (size_t i = 0; i < log->n; i++) {
        const tl_ev *e = &log->v[i].e;
        int64_t t = log->v[i].ns;
        int k = (int)(e->kl >> 24), vp = log->v[i].vp;
        proc *p = e->pid < ps->n ? &ps->v[e->pid] : NULL;
        int vp_ok = vp >= 0 && vp < nvp;
        /* the VP's running span ends at whatever it does next */
        if (vp_ok && vp_cur[vp] &&
            (k == TL_RUN || k == TL_BLOCK || k == TL_YIELD || k == TL_EXIT || k == TL_IDLE)) {
            span(f, JPID_VPS, vp, pname(ps, vp_cur[vp]), vp_from[vp], t, "run");
            vp_cur[vp] = 0;
        }
        switch (k) {
        case TL_RUN:
            if (vp_ok) {
                vp_cur[vp] = e->pid;
                vp_from[vp] = t;
            }
            if (p) {
                if (p->blocked) {
                    span(f, JPID_PROCS, e->pid, why_name(p->why), p->block_from, t, "blocked");
                    p->blocked = 0;
                }
                p->run_from = t;
                p->running_vp = vp;
            }
            break;
        case TL_BLOCK:
        case TL_YIELD:
        case TL_EXIT:
            if (p && p->running_vp >= 0) {
                span(f, JPID_PROCS, e->pid, "running", p->run_from, t, "run");
                p->running_vp = -1;
            }
            if (p && k == TL_BLOCK) {
                p->blocked = 1;
                p->block_from = t;
                p->why = e->a;
                char buf[64];
                snprintf(buf, sizeof buf, "block: %s", why_name(e->a));
                instant(f, e->pid, buf, t, fs, e);
            } else if (k == TL_EXIT) {
                instant(f, e->pid, "exit", t, NULL, NULL);
            }
            break;
        case TL_SEND:
        case TL_CALL:
        case TL_TAKE: {
            const char *nm = k == TL_SEND ? "send" : k == TL_CALL ? "call" : "receive";
            instant(f, e->pid, nm, t, fs, e);
            if (e->a) { /* the arrow: from the send or call to its taker */
                fprintf(
                    f,
                    ",\n{\"ph\":\"%s\",%s\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"invocation\","
                    "\"name\":\"invocation\",\"id\":%llu}",
                    k == TL_TAKE ? "f" : "s", k == TL_TAKE ? "\"bp\":\"e\"," : "", JPID_PROCS,
                    e->pid, US(t), (unsigned long long)e->a);
            }
            break;
        }
        case TL_WAKE: {
            char buf[300];
            uint32_t by = (uint32_t)(e->a >> 32);
            snprintf(buf, sizeof buf, "wakes %s #%u", pname(ps, (uint32_t)e->a), (uint32_t)e->a);
            if (e->pid)
                instant(f, e->pid, buf, t, NULL, NULL);
            else {
                snprintf(buf, sizeof buf, "woken by %s", by == TL_BY_TIMER ? "timer" : "I/O");
                instant(f, (long)(uint32_t)e->a, buf, t, NULL, NULL);
            }
            break;
        }
        case TL_RESCREATE:
        case TL_RESDESTROY: {
            char buf[300];
            snprintf(buf, sizeof buf, k == TL_RESCREATE ? "create %s" : "destroy%s",
                     k == TL_RESCREATE ? (const char *)(uintptr_t)e->a : "");
            instant(f, e->pid, buf, t, fs, e);
            break;
        }
        case TL_ABORT:
            instant(f, e->pid, "RTS abort", t, fs, e);
            break;
        case TL_P:
        case TL_V:
            instant(f, e->pid, k == TL_P ? "P" : "V", t, fs, e);
            break;
        case TL_DEADLOCK:
        case TL_END: {
            fprintf(f, ",\n{\"ph\":\"i\",\"s\":\"g\",\"pid\":%d,\"tid\":0,\"ts\":%.3f,\"name\":",
                    JPID_PROCS, US(t));
            char buf[64];
            snprintf(buf, sizeof buf, k == TL_END ? "end (status %d)" : "deadlock: %d blocked",
                     (int)e->a);
            jcstr(f, buf);
            putc('}', f);
            break;
        }
        }
    }
    /* what still ran or waited at the end */
    for (int vp = 0; vp < nvp; vp++)
        if (vp_cur[vp])
            span(f, JPID_VPS, vp, pname(ps, vp_cur[vp]), vp_from[vp], end, "run");
    for (size_t pid = 1; pid < ps->n; pid++) {
        proc *p = &ps->v[pid];
        if (p->seen && p->blocked)
            span(f, JPID_PROCS, (long)pid, why_name(p->why), p->block_from, end, "blocked");
        else if (p->seen && p->running_vp >= 0)
            span(f, JPID_PROCS, (long)pid, "running", p->run_from, end, "run");
    }
    fputs("\n]}\n", f);
    free(vp_cur);
    free(vp_from);
    return 0;
}

int mpd__tl_write(const tl_log *log)
{
    size_t n = strlen(log->path);
    int json = n >= 5 && strcmp(log->path + n - 5, ".json") == 0;
    FILE *f = fopen(log->path, "w");
    if (!f)
        return -1;
    procs ps = {NULL, 0};
    files fs = {NULL, 0, 0};
    gather_procs(log, &ps, &fs);
    int r = json ? write_json(f, log, &ps, &fs) : write_html(f, log, &ps, &fs);
    if (fclose(f) != 0)
        r = -1;
    free(ps.v);
    free(fs.v);
    return r;
}
