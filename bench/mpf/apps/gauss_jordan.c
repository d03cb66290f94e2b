/* gauss_jordan.c: the MPF paper's Gauss-Jordan solver with partial pivoting, on MPF conversations.
 *
 *   gauss_jordan [-n size] [-p max_workers] [-t]
 *
 * The rows of A|b are split into P contiguous blocks, one per worker.  For each
 * column k every worker sends its best unused pivot candidate FCFS to the
 * arbiter (conversation "cand"); the arbiter broadcasts its choice ("choice");
 * the owner of the chosen row broadcasts it ("pivot") and every worker
 * eliminates column k from its other rows.  At the end each worker sends the
 * unknowns of its pivot rows to the arbiter ("result").  The solution is checked
 * against the same algorithm run sequentially, and speedup is printed for P =
 * 1..max_workers.  Workers are OS processes on a named segment (or threads, -t). */
#include <math.h>

#include "team.h"

static int n;
static double *A0, *b0; /* the system, row-major, read-only once made */
static double *x_par;   /* the parallel solution (coordinator) */
static int P;

typedef struct cand {
    double mag;
    int row, owner;
} cand;

static void make_system(void)
{
    A0 = malloc(sizeof(double) * n * n);
    b0 = malloc(sizeof(double) * n);
    unsigned s = 12345;
    for (int i = 0; i < n * n; i++) {
        s = s * 1103515245u + 12345u;
        A0[i] = (double)((s >> 8) % 20001) / 10000.0 - 1.0;
    }
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        b0[i] = (double)((s >> 8) % 20001) / 10000.0 - 1.0;
    }
}

/* The same algorithm in one process: the reference and the speedup base. */
static void solve_sequential(double *x)
{
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
    int *used = calloc((size_t)n, sizeof(int)), *prow = malloc(sizeof(int) * n);
    memcpy(a, A0, sizeof(double) * n * n);
    memcpy(b, b0, sizeof(double) * n);
    for (int k = 0; k < n; k++) {
        int r = -1;
        double best = -1;
        for (int i = 0; i < n; i++)
            if (!used[i] && fabs(a[i * n + k]) > best)
                best = fabs(a[i * n + k]), r = i;
        used[r] = 1;
        prow[k] = r;
        const double *p = &a[r * n];
        for (int i = 0; i < n; i++) {
            if (i == r)
                continue;
            double f = a[i * n + k] / p[k];
            for (int j = k; j < n; j++)
                a[i * n + j] -= f * p[j];
            b[i] -= f * b[r];
        }
    }
    for (int k = 0; k < n; k++)
        x[k] = b[prow[k]] / a[prow[k] * n + k];
    free(a), free(b), free(used), free(prow);
}

static void worker(int w)
{
    mpf_t *m = team_mpf;
    int lo = (w - 1) * n / P, hi = w * n / P, rows = hi - lo;
    double *a = malloc(sizeof(double) * (rows ? rows : 1) * n),
           *b = malloc(sizeof(double) * (rows ? rows : 1));
    double *piv = malloc(sizeof(double) * (n + 1));
    int *pcol = malloc(sizeof(int) * (rows ? rows : 1));
    memcpy(a, &A0[lo * n], sizeof(double) * rows * n);
    memcpy(b, &b0[lo], sizeof(double) * rows);
    for (int i = 0; i < rows; i++)
        pcol[i] = -1;
    int cand_l = OK(mpf_open_send(m, w, "cand"));
    int choice = OK(mpf_open_receive(m, w, "choice", MPF_BROADCAST));
    int pivot_s = OK(mpf_open_send(m, w, "pivot"));
    int pivot_r = OK(mpf_open_receive(m, w, "pivot", MPF_BROADCAST));
    int result = OK(mpf_open_send(m, w, "result"));
    int ready = OK(mpf_open_send(m, w, "ready"));
    OK(mpf_message_send(m, w, ready, "", 0));
    for (int k = 0; k < n; k++) {
        cand c = {-1, -1, w};
        for (int i = 0; i < rows; i++)
            if (pcol[i] < 0 && fabs(a[i * n + k]) > c.mag)
                c.mag = fabs(a[i * n + k]), c.row = lo + i;
        OK(mpf_message_send(m, w, cand_l, &c, sizeof c));
        cand chosen;
        OK(mpf_message_receive(m, w, choice, &chosen, sizeof chosen));
        int mine = chosen.owner == w ? chosen.row - lo : -1;
        if (mine >= 0) { /* broadcast columns k..n-1 of the pivot row, then its b */
            pcol[mine] = k;
            memcpy(piv, &a[mine * n + k], sizeof(double) * (n - k));
            piv[n - k] = b[mine];
            OK(mpf_message_send(m, w, pivot_s, piv, sizeof(double) * (n - k + 1)));
        }
        ssize_t len = OK(mpf_message_receive(m, w, pivot_r, piv, sizeof(double) * (n + 1)));
        if (len != (ssize_t)(sizeof(double) * (n - k + 1))) {
            fprintf(stderr, "worker %d: pivot row of %zd bytes at column %d\n", w, len, k);
            exit(1);
        }
        for (int i = 0; i < rows; i++) {
            if (i == mine)
                continue;
            double *r = &a[i * n], f = r[k] / piv[0];
            for (int j = k; j < n; j++)
                r[j] -= f * piv[j - k];
            b[i] -= f * piv[n - k];
        }
    }
    /* Unknowns of my pivot rows, as (column, value) pairs in one message. */
    double *out = malloc(sizeof(double) * 2 * (rows ? rows : 1));
    for (int i = 0; i < rows; i++)
        out[2 * i] = pcol[i], out[2 * i + 1] = b[i] / a[i * n + pcol[i]];
    OK(mpf_message_send(m, w, result, out, sizeof(double) * 2 * rows));
    OK(mpf_close_send(m, w, cand_l));
    OK(mpf_close_receive(m, w, choice));
    OK(mpf_close_send(m, w, pivot_s));
    OK(mpf_close_receive(m, w, pivot_r));
    OK(mpf_close_send(m, w, result));
    OK(mpf_close_send(m, w, ready));
    free(a), free(b), free(piv), free(pcol), free(out);
}

static double t_par;

/* The arbiter: picks the largest candidate of each column and broadcasts it. */
static void arbiter(void)
{
    mpf_t *m = team_mpf;
    int cand_l = OK(mpf_open_receive(m, 0, "cand", MPF_FCFS));
    int choice = OK(mpf_open_send(m, 0, "choice"));
    int result = OK(mpf_open_receive(m, 0, "result", MPF_FCFS));
    int ready = OK(mpf_open_receive(m, 0, "ready", MPF_FCFS));
    for (int w = 0; w < P; w++)
        OK(mpf_message_receive(m, 0, ready, NULL, 0));
    double t0 = team_now();
    for (int k = 0; k < n; k++) {
        cand best = {-1, -1, -1}, c;
        for (int w = 0; w < P; w++) {
            OK(mpf_message_receive(m, 0, cand_l, &c, sizeof c));
            if (c.mag > best.mag || (c.mag == best.mag && c.row >= 0 && c.row < best.row))
                best = c;
        }
        OK(mpf_message_send(m, 0, choice, &best, sizeof best));
    }
    double *in = malloc(sizeof(double) * 2 * n);
    for (int got = 0, w = 0; w < P; w++) {
        ssize_t len = OK(mpf_message_receive(m, 0, result, in, sizeof(double) * 2 * n));
        for (int i = 0; i < (int)(len / (ssize_t)(2 * sizeof(double))); i++, got++)
            x_par[(int)in[2 * i]] = in[2 * i + 1];
    }
    t_par = team_now() - t0;
    free(in);
    OK(mpf_close_receive(m, 0, cand_l));
    OK(mpf_close_send(m, 0, choice));
    OK(mpf_close_receive(m, 0, result));
    OK(mpf_close_receive(m, 0, ready));
}

int main(int argc, char **argv)
{
    int maxp = 4;
    n = 600;
    team_options(argc, argv, &maxp, &n);
    make_system();
    double *x_seq = malloc(sizeof(double) * n);
    x_par = malloc(sizeof(double) * n);
    /* Every time is the best of REPS runs: the machine is shared. */
    double t_seq = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = team_now();
        solve_sequential(x_seq);
        t_seq = fmin(t_seq, team_now() - t0);
    }
    /* Residual of the reference solution, relative to |A| |x|. */
    double res = 0, xmax = 0;
    for (int i = 0; i < n; i++) {
        double s = -b0[i];
        for (int j = 0; j < n; j++)
            s += A0[i * n + j] * x_seq[j];
        res = fmax(res, fabs(s));
        xmax = fmax(xmax, fabs(x_seq[i]));
    }
    printf("Gauss-Jordan with partial pivoting, n = %d, workers = %s; sequential %.3f s, residual "
           "%.1e\n",
           n, team_procs ? "processes" : "threads", t_seq, res / (n * xmax));
    printf("%4s %10s %8s %12s\n", "P", "seconds", "speedup", "max|x-xseq|");
    int bad = res / (n * xmax) > 1e-12;
    for (P = 1; P <= maxp; P++) {
        double best = 1e30, diff = 0;
        for (int r = 0; r < REPS; r++) {
            memset(x_par, 0, sizeof(double) * n);
            team_init(P, sizeof(double) * 2 * (n + 1));
            team_run(P, worker, arbiter);
            best = fmin(best, t_par);
        }
        t_par = best;
        for (int i = 0; i < n; i++)
            diff = fmax(diff, fabs(x_par[i] - x_seq[i]));
        printf("%4d %10.3f %8.2f %12.1e%s\n", P, t_par, t_seq / t_par, diff,
               diff > 1e-9 * xmax ? "  WRONG" : "");
        bad |= diff > 1e-9 * xmax;
    }
    return bad;
}
