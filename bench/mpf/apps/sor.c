/* sor.c: the MPF paper's Poisson solver -- red-black successive over-relaxation on MPF conversations.
 *
 *   sor [-n size] [-p max_workers] [-t]
 *
 * Solves u_xx + u_yy = f on the unit square, u = 0 on the boundary, with
 * f = -2 pi^2 sin(pi x) sin(pi y) (so u = sin(pi x) sin(pi y)), on an n x n
 * interior grid.  As in the paper, the grid is split into a PR x PC array of
 * subgrids (PR the largest divisor of P not above its square root: 2 x 2 for
 * 4 workers, 2 x 3 for 6; a prime P gives 1 x P), one per worker, each with up
 * to four neighbours.  After each half sweep (red, then black points) a worker
 * sends its edges FCFS to its neighbours' inboxes -- its top row to the north
 * neighbour's "S-w" (what comes from its south), its bottom row to the south
 * one's "N-w", its left and right columns (packed) to "E-w" and "W-w" -- then
 * receives its own four ghost edges.  After each sweep it sends its largest
 * change FCFS to the monitor ("conv"), which broadcasts the verdict -- go on or
 * stop -- to all ("verdict").  Red-black ordering makes the parallel sweep do
 * exactly the sequential arithmetic, so the result is checked for equality
 * with the sequential solver; speedup is printed for P = 1..max. */
#include <math.h>

#include "team.h"

static int n, P, PR, PC; /* P = PR x PC subgrids */
static double omega, h2, tol = 1e-9;
static double *u_seq, *u_par; /* (n+2) x (n+2) including the boundary */
static int iters_seq, iters_par;
static const int MAXIT = 100000;

#define U(u, i, j) (u)[(size_t)(i) * (n + 2) + (j)]

static double f_at(int i, int j)
{
    double x = j / (double)(n + 1), y = i / (double)(n + 1);
    return -2.0 * M_PI * M_PI * sin(M_PI * x) * sin(M_PI * y);
}

/* A subgrid: global rows r0..r1-1 and columns c0..c1-1, stored with a ghost
 * border (local (1,1) is global (r0,c0)), ld doubles per stored row. */
typedef struct sub {
    int r0, r1, c0, c1, ld;
} sub;
#define AT(g, u, i, j) (u)[(size_t)(i) * (g)->ld + (j)]

/* One colour's half sweep (the points with i + j + colour even) over a subgrid; returns the largest change. */
static double half_sweep(double *u, const double *f, const sub *g, int colour)
{
    double dmax = 0;
    for (int i = g->r0; i < g->r1; i++) {
        int li = i - g->r0 + 1;
        for (int j = g->c0 + ((i + g->c0 + colour) & 1); j < g->c1; j += 2) {
            int lj = j - g->c0 + 1;
            double gs = 0.25 * (AT(g, u, li - 1, lj) + AT(g, u, li + 1, lj) + AT(g, u, li, lj - 1) +
                                AT(g, u, li, lj + 1) - h2 * AT(g, f, li, lj));
            double d = omega * (gs - AT(g, u, li, lj));
            AT(g, u, li, lj) += d;
            dmax = fmax(dmax, fabs(d));
        }
    }
    return dmax;
}

static void solve_sequential(void)
{
    double *f = calloc((size_t)(n + 2) * (n + 2), sizeof(double));
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            U(f, i, j) = f_at(i, j);
    sub whole = {1, n + 1, 1, n + 1, n + 2};
    for (iters_seq = 1; iters_seq <= MAXIT; iters_seq++) {
        double d = half_sweep(u_seq, f, &whole, 0);
        d = fmax(d, half_sweep(u_seq, f, &whole, 1));
        if (d < tol)
            break;
    }
    free(f);
}

/* Open inbox `dir` of worker w (what its neighbour on that side sends), or -1 without that neighbour. */
static int inbox(mpf_t *m, int w, char dir, int has)
{
    char name[32];
    snprintf(name, sizeof name, "%c-%d", dir, w);
    return has ? OK(mpf_open_receive(m, w, name, MPF_FCFS)) : -1;
}

/* Open, as worker w, the inbox `dir` of neighbour `to`, or -1. */
static int outbox(mpf_t *m, int w, int to, char dir, int has)
{
    char name[32];
    snprintf(name, sizeof name, "%c-%d", dir, to);
    return has ? OK(mpf_open_send(m, w, name)) : -1;
}

static void worker(int w)
{
    mpf_t *m = team_mpf;
    int pr = (w - 1) / PC, pc = (w - 1) % PC;
    sub g = {1 + pr * n / PR, 1 + (pr + 1) * n / PR, 1 + pc * n / PC, 1 + (pc + 1) * n / PC, 0};
    int rows = g.r1 - g.r0, cols = g.c1 - g.c0;
    g.ld = cols + 2;
    double *u = calloc((size_t)(rows + 2) * g.ld, sizeof(double));
    double *f = calloc((size_t)(rows + 2) * g.ld, sizeof(double));
    double *col = malloc(sizeof(double) * (size_t)(rows > cols ? rows : cols) + 2 * sizeof(double));
    for (int i = g.r0; i < g.r1; i++)
        for (int j = g.c0; j < g.c1; j++)
            AT(&g, f, i - g.r0 + 1, j - g.c0 + 1) = f_at(i, j);
    int north = pr > 0, south = pr<PR - 1, west = pc> 0, east = pc < PC - 1;
    int in_n = inbox(m, w, 'N', north), in_s = inbox(m, w, 'S', south);
    int in_w = inbox(m, w, 'W', west), in_e = inbox(m, w, 'E', east);
    int to_n = outbox(m, w, w - PC, 'S', north), to_s = outbox(m, w, w + PC, 'N', south);
    int to_w = outbox(m, w, w - 1, 'E', west), to_e = outbox(m, w, w + 1, 'W', east);
    int conv = OK(mpf_open_send(m, w, "conv"));
    int verdict = OK(mpf_open_receive(m, w, "verdict", MPF_BROADCAST));
    int result = OK(mpf_open_send(m, w, "result"));
    size_t rowb = sizeof(double) * (size_t)cols, colb = sizeof(double) * (size_t)rows;
    for (;;) {
        double d = 0;
        for (int colour = 0; colour < 2; colour++) {
            d = fmax(d, half_sweep(u, f, &g, colour));
            /* Exchange edges; messages are queued, so send all four, then receive. */
            if (to_n >= 0)
                OK(mpf_message_send(m, w, to_n, &AT(&g, u, 1, 1), rowb));
            if (to_s >= 0)
                OK(mpf_message_send(m, w, to_s, &AT(&g, u, rows, 1), rowb));
            if (to_w >= 0) {
                for (int i = 1; i <= rows; i++)
                    col[i - 1] = AT(&g, u, i, 1);
                OK(mpf_message_send(m, w, to_w, col, colb));
            }
            if (to_e >= 0) {
                for (int i = 1; i <= rows; i++)
                    col[i - 1] = AT(&g, u, i, cols);
                OK(mpf_message_send(m, w, to_e, col, colb));
            }
            if (in_n >= 0)
                OK(mpf_message_receive(m, w, in_n, &AT(&g, u, 0, 1), rowb));
            if (in_s >= 0)
                OK(mpf_message_receive(m, w, in_s, &AT(&g, u, rows + 1, 1), rowb));
            if (in_w >= 0) {
                OK(mpf_message_receive(m, w, in_w, col, colb));
                for (int i = 1; i <= rows; i++)
                    AT(&g, u, i, 0) = col[i - 1];
            }
            if (in_e >= 0) {
                OK(mpf_message_receive(m, w, in_e, col, colb));
                for (int i = 1; i <= rows; i++)
                    AT(&g, u, i, cols + 1) = col[i - 1];
            }
        }
        OK(mpf_message_send(m, w, conv, &d, sizeof d));
        int go;
        OK(mpf_message_receive(m, w, verdict, &go, sizeof go));
        if (!go)
            break;
    }
    /* Send my part home, one message per row: (global row, first column, values...). */
    for (int i = 1; i <= rows; i++) {
        col[0] = g.r0 + i - 1;
        col[1] = g.c0;
        memcpy(col + 2, &AT(&g, u, i, 1), rowb);
        OK(mpf_message_send(m, w, result, col, rowb + 2 * sizeof(double)));
    }
    int boxes[] = {in_n, in_s, in_w, in_e}, outs[] = {to_n, to_s, to_w, to_e};
    for (int k = 0; k < 4; k++) {
        if (boxes[k] >= 0)
            OK(mpf_close_receive(m, w, boxes[k]));
        if (outs[k] >= 0)
            OK(mpf_close_send(m, w, outs[k]));
    }
    OK(mpf_close_send(m, w, conv));
    OK(mpf_close_receive(m, w, verdict));
    OK(mpf_close_send(m, w, result));
    free(u), free(f), free(col);
}

static double t_par;

/* The monitor: gathers every worker's largest change, broadcasts whether to go on. */
static void monitor(void)
{
    mpf_t *m = team_mpf;
    int conv = OK(mpf_open_receive(m, 0, "conv", MPF_FCFS));
    int verdict = OK(mpf_open_send(m, 0, "verdict"));
    int result = OK(mpf_open_receive(m, 0, "result", MPF_FCFS));
    double t0 = team_now();
    for (iters_par = 1;; iters_par++) {
        double dmax = 0, d;
        for (int w = 0; w < P; w++) {
            OK(mpf_message_receive(m, 0, conv, &d, sizeof d));
            dmax = fmax(dmax, d);
        }
        int go = !(dmax < tol) && iters_par < MAXIT;
        OK(mpf_message_send(m, 0, verdict, &go, sizeof go));
        if (!go)
            break;
    }
    /* Every worker sends each of its rows: n rows per column of subgrids. */
    double *row = malloc(sizeof(double) * (n + 2));
    for (int k = 0; k < n * PC; k++) {
        ssize_t len = OK(mpf_message_receive(m, 0, result, row, sizeof(double) * (n + 2)));
        int i = (int)row[0], c0 = (int)row[1];
        memcpy(&U(u_par, i, c0), row + 2, (size_t)len - 2 * sizeof(double));
    }
    t_par = team_now() - t0;
    free(row);
    OK(mpf_close_receive(m, 0, conv));
    OK(mpf_close_send(m, 0, verdict));
    OK(mpf_close_receive(m, 0, result));
}

int main(int argc, char **argv)
{
    int maxp = 4;
    n = 200;
    team_options(argc, argv, &maxp, &n);
    omega = 2.0 / (1.0 + sin(M_PI / (n + 1)));
    h2 = 1.0 / ((double)(n + 1) * (n + 1));
    size_t cells = (size_t)(n + 2) * (n + 2);
    u_seq = calloc(cells, sizeof(double));
    u_par = calloc(cells, sizeof(double));
    /* Every time is the best of REPS runs: the machine is shared. */
    double t_seq = 1e30, err = 0;
    for (int r = 0; r < REPS; r++) {
        memset(u_seq, 0, cells * sizeof(double));
        double t0 = team_now();
        solve_sequential();
        t_seq = fmin(t_seq, team_now() - t0);
    }
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            err =
                fmax(err, fabs(U(u_seq, i, j) - sin(M_PI * j / (n + 1)) * sin(M_PI * i / (n + 1))));
    printf("SOR (red-black, omega %.4f) for Poisson, %d x %d grid, workers = %s; sequential %.3f "
           "s, %d sweeps, "
           "|u - exact| = %.1e\n",
           omega, n, n, team_procs ? "processes" : "threads", t_seq, iters_seq, err);
    printf("%4s %6s %10s %8s %7s %12s\n", "P", "grid", "seconds", "speedup", "sweeps",
           "max|u-useq|");
    int bad = err > 10.0 / ((double)(n + 1) * (n + 1));
    for (P = 1; P <= maxp && P <= n; P++) {
        double best = 1e30, diff = 0;
        for (PR = 1; (PR + 1) * (PR + 1) <= P; PR++) {
        }
        while (P % PR)
            PR--; /* the largest divisor of P not above its square root */
        PC = P / PR;
        for (int r = 0; r < REPS; r++) {
            memset(u_par, 0, cells * sizeof(double));
            team_init(P, sizeof(double) * (n + 2));
            team_run(P, worker, monitor);
            best = fmin(best, t_par);
        }
        t_par = best;
        for (size_t k = 0; k < cells; k++)
            diff = fmax(diff, fabs(u_par[k] - u_seq[k]));
        int wrong = diff != 0 || iters_par != iters_seq;
        char grid[16];
        snprintf(grid, sizeof grid, "%dx%d", PR, PC);
        printf("%4d %6s %10.3f %8.2f %7d %12.1e%s\n", P, grid, t_par, t_seq / t_par, iters_par,
               diff, wrong ? "  WRONG" : "");
        bad |= wrong;
    }
    return bad;
}
