/* cputime: run a command, then append "cpu <user s> <system s>" (getrusage
 * of the child, microseconds) to the file named first.  For ab.sh, whose
 * trials are too short for time(1)'s 10 ms figures. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cputime outfile command [args...]\n");
        return 2;
    }
    pid_t p = fork();
    if (p == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (p < 0 || wait4(p, &st, 0, &ru) < 0)
        return 2;
    FILE *f = fopen(argv[1], "a");
    if (!f)
        return 2;
    fprintf(f, "cpu %ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
            (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
    fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
