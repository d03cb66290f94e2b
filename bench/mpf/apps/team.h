/* team.h: shared helpers of the MPF applications -- a team of P workers as forked processes or threads, timing, checks. */
#ifndef MPF_APPS_TEAM_H
#define MPF_APPS_TEAM_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpd/mpf.h"

static mpf_t *team_mpf;
static int REPS = 3;       /* -r: runs per configuration; the best time counts */
static int team_procs = 1; /* 1: workers are OS processes sharing a named segment; 0: threads */

static double team_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Any MPF error in an application is a bug: say where and stop. */
#define OK(e) team_ok((long)(e), #e, __LINE__)
static long team_ok(long rc, const char *what, int line)
{
    if (rc < 0) {
        fprintf(stderr, "line %d: %s: %s\n", line, what, mpf_strerror((int)rc));
        exit(1);
    }
    return rc;
}

/* A fresh MPF instance for one run with `workers` workers plus the coordinator. */
static void team_init(int workers, size_t max_message)
{
    char seg[64];
    snprintf(seg, sizeof seg, "/mpf-app-%d", (int)getpid());
    mpf_options o = {.shm_name = team_procs ? seg : NULL,
                     .replace = 1,
                     .max_lnvcs = 4 * workers + 16,
                     .max_processes = workers + 2,
                     .max_message = max_message < 65536 ? 65536 : max_message,
                     .pool_bytes = 64u << 20,
                     .max_messages = 32768,
                     .send_waits = 1};
    OK(mpf_init_ex(&team_mpf, &o));
    if (team_procs)
        mpf_unlink(seg);
}

typedef struct team_arg {
    void (*fn)(int);
    int id;
} team_arg;
static void *team_thread(void *a)
{
    team_arg *t = a;
    t->fn(t->id);
    return NULL;
}

/* Runs fn(1..workers) concurrently with the caller's coord(); waits for all. */
static void team_run(int workers, void (*fn)(int), void (*coord)(void))
{
    pid_t pids[256];
    pthread_t th[256];
    team_arg args[256];
    fflush(NULL);
    for (int w = 1; w <= workers; w++) {
        if (team_procs) {
            if ((pids[w] = fork()) == 0) {
                fn(w);
                _exit(0);
            }
        } else {
            args[w] = (team_arg){fn, w};
            pthread_create(&th[w], NULL, team_thread, &args[w]);
        }
    }
    coord();
    for (int w = 1; w <= workers; w++) {
        if (team_procs) {
            int st;
            waitpid(pids[w], &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st)) {
                fprintf(stderr, "worker %d failed\n", w);
                exit(1);
            }
        } else {
            pthread_join(th[w], NULL);
        }
    }
    mpf_finish(team_mpf);
    team_mpf = NULL;
}

/* Common options: -p maxP, -n size, -r repeats, -t (threads instead of processes). */
static void team_options(int argc, char **argv, int *maxp, int *n)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p") && i + 1 < argc)
            *maxp = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            *n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t"))
            team_procs = 0;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc)
            REPS = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-p max_processes] [-n size] [-r repeats] [-t]\n", argv[0]);
            exit(2);
        }
    }
    if (*maxp < 1 || *maxp > 64 || *n < 4 || REPS < 1) {
        fprintf(stderr, "%s: bad -p, -n or -r\n", argv[0]);
        exit(2);
    }
}
#endif
