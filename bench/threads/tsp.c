/* tsp.c: parallel branch-and-bound travelling salesperson on mpd threads, after the configurable-
 * threads paper: searcher threads share a work queue (qlock), the best tour (glob-low-lock), the
 * number of active searchers (glob-act-lock) and global statistics (globlock).
 * Usage: tsp LOCK NVP [CITIES [SEED [SPLIT [PROFILE_DIR]]]]   LOCK = spin | block | adaptive;
 *        SPLIT: nodes shallower than this go back to the shared queue (default CITIES-8)
 * Prints: "tsp lock=.. nvp=.. cities=.. best=.. nodes=.. seconds=.." */
#include <limits.h>
#include <stdint.h>
#include "apps_common.h"

#define MAXC 20
static int nc, dist[MAXC][MAXC], min_edge;
static int split_depth;

typedef struct node {
    struct node *next;
    int depth, len, last;
    uint32_t visited;
} node;

/* shared state and its four locks */
static app_lock_t *qlock, *glob_low_lock, *glob_act_lock, *globlock;
static node *queue;         /* LIFO: depth-first order keeps the bound tight */
static node *pool;          /* free nodes (under qlock) */
static int best = INT_MAX;  /* under glob_low_lock */
static int active;          /* under glob_act_lock */
static long nodes_expanded; /* under globlock */
static int nvp;

static node *node_new(void)
{ /* qlock held */
    node *n = pool;
    if (n)
        pool = n->next;
    else
        n = malloc(sizeof *n);
    return n;
}

static int bound(const node *n)
{
    return n->len + (nc - n->depth) * min_edge;
}

/* Sequential depth-first search below a node, with a local copy of the bound. */
static void dfs(int depth, int len, int last, uint32_t visited, int *local_best, long *count)
{
    (*count)++;
    if (depth == nc) {
        int total = len + dist[last][0];
        if (total < *local_best)
            *local_best = total;
        return;
    }
    for (int c = 1; c < nc; c++) {
        if (visited & (1u << c))
            continue;
        int l = len + dist[last][c];
        if (l + (nc - depth - 1) * min_edge + min_edge >= *local_best)
            continue;
        dfs(depth + 1, l, c, visited | (1u << c), local_best, count);
    }
}

static void publish_best(int b)
{
    app_acquire(glob_low_lock);
    if (b < best)
        best = b;
    app_release(glob_low_lock);
}

static void *searcher(void *arg)
{
    (void)arg;
    int local_best = INT_MAX;
    for (;;) {
        app_acquire(qlock);
        node *n = queue;
        if (n)
            queue = n->next;
        app_release(qlock);
        if (!n) {
            app_acquire(glob_act_lock);
            int a = active;
            app_release(glob_act_lock);
            if (a == 0)
                break; /* nothing queued, nobody expanding */
            mpd_thread_yield();
            continue;
        }
        app_acquire(glob_act_lock);
        active++;
        app_release(glob_act_lock);
        app_acquire(glob_low_lock); /* refresh the local copy of the bound */
        if (best < local_best)
            local_best = best;
        app_release(glob_low_lock);
        long count = 0;
        if (bound(n) < local_best) {
            if (n->depth < split_depth) {
                for (int c = nc - 1; c >= 1; c--) { /* children go back to the shared queue */
                    if (n->visited & (1u << c))
                        continue;
                    app_acquire(qlock);
                    node *k = node_new();
                    k->depth = n->depth + 1;
                    k->len = n->len + dist[n->last][c];
                    k->last = c;
                    k->visited = n->visited | (1u << c);
                    k->next = queue;
                    queue = k;
                    app_release(qlock);
                }
                count = 1;
            } else {
                int before = local_best;
                dfs(n->depth, n->len, n->last, n->visited, &local_best, &count);
                if (local_best < before)
                    publish_best(local_best);
            }
        }
        app_acquire(globlock);
        nodes_expanded += count;
        app_release(globlock);
        app_acquire(qlock);
        n->next = pool;
        pool = n;
        app_release(qlock);
        app_acquire(glob_act_lock);
        active--;
        app_release(glob_act_lock);
    }
    return NULL;
}

static double elapsed;
static void tsp_main(void *arg)
{
    (void)arg;
    node *root = malloc(sizeof *root);
    root->depth = 1;
    root->len = 0;
    root->last = 0;
    root->visited = 1;
    root->next = NULL;
    queue = root;
    mpd_thread_t *t[64];
    double t0 = app_now();
    for (int i = 0; i < nvp; i++) {
        mpd_thread_attr_t a;
        mpd_thread_attr_init(&a);
        a.vp = i;
        a.name = "searcher";
        mpd_thread_fork(&t[i], &a, searcher, NULL);
    }
    for (int i = 0; i < nvp; i++)
        mpd_thread_join(t[i], NULL);
    elapsed = app_now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tsp spin|block|backoff|spinblock|adaptive|pthread NVP [CITIES "
                        "[SEED [SPLIT [PROFILE_DIR]]]]\n");
        return 2;
    }
    enum app_kind k = app_lock_kind(argv[1]);
    nvp = atoi(argv[2]);
    nc = argc > 3 ? atoi(argv[3]) : 13;
    unsigned seed = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    const char *pdir = argc > 6 ? argv[6] : NULL;
    if (nvp < 1 || nvp > 64 || nc < 4 || nc > MAXC) {
        fprintf(stderr, "tsp: NVP 1..64, CITIES 4..%d\n", MAXC);
        return 2;
    }
    split_depth = argc > 5 ? atoi(argv[5]) : (nc > 9 ? nc - 8 : 2);
    if (split_depth < 2 || split_depth > nc) {
        fprintf(stderr, "tsp: SPLIT 2..CITIES\n");
        return 2;
    }
    int x[MAXC], y[MAXC];
    srand(seed);
    for (int i = 0; i < nc; i++) {
        x[i] = rand() % 1000;
        y[i] = rand() % 1000;
    }
    min_edge = INT_MAX;
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < nc; j++) {
            double dx = x[i] - x[j], dy = y[i] - y[j];
            dist[i][j] = (int)(__builtin_sqrt(dx * dx + dy * dy) + 0.5);
            if (i != j && dist[i][j] < min_edge)
                min_edge = dist[i][j];
        }
    qlock = app_lock("qlock", k);
    glob_low_lock = app_lock("glob-low-lock", k);
    glob_act_lock = app_lock("glob-act-lock", k);
    globlock = app_lock("globlock", k);
    app_sched_pinned();
    mpd_threads_main(nvp, tsp_main, NULL);
    printf("tsp lock=%s nvp=%d cities=%d best=%d nodes=%ld seconds=%.4f", argv[1], nvp, nc, best,
           nodes_expanded, elapsed);
    app_stats_add(qlock);
    app_stats_add(glob_low_lock);
    app_stats_add(glob_act_lock);
    app_stats_add(globlock);
    app_stats_print();
    char prefix[64];
    snprintf(prefix, sizeof prefix, "tsp-%s-%d", argv[1], nvp);
    app_write_profile(pdir, prefix, qlock);
    app_write_profile(pdir, prefix, glob_low_lock);
    app_write_profile(pdir, prefix, glob_act_lock);
    app_write_profile(pdir, prefix, globlock);
    return 0;
}
