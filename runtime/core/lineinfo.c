/* lineinfo.c: the source file and line of a code address, read from the
 * executable's DWARF line tables (.debug_line, versions 2 to 5).
 *
 * Generated C carries `#line N "prog.mpd"` and mpd compiles it with -g1
 * (line tables only; the code is the same), so the address of a faulting
 * instruction maps back to the MPD source.  This runs in a fault handler:
 * it uses only open, fstat, mmap and munmap, no malloc and no stdio, and a
 * malformed table ends the search (answer "unknown"), never a fault.  The
 * load address of a position-independent executable is taken at start-up
 * (mpd__lineinfo_init), when calling the dynamic linker is still safe. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/rt_internal.h"

static uintptr_t load_bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
    return 1; /* the executable comes first */
}

void mpd__lineinfo_init(void)
{
    dl_iterate_phdr(first_object, &load_bias);
}

/* A bounded reader: every read checks the end, a bad table sets bad. */
typedef struct {
    const unsigned char *p, *end;
    int bad;
} rd;

static int avail(rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    return 1;
}

static uint64_t u_n(rd *r, int n)
{
    uint64_t v = 0;
    if (!avail(r, (size_t)n))
        return 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t uleb(rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; avail(r, 1); shift += 7) {
        unsigned char b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    return 0;
}

static int64_t sleb(rd *r)
{
    int64_t v = 0;
    int shift = 0;
    unsigned char b = 0;
    do {
        if (!avail(r, 1))
            return 0;
        b = *r->p++;
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= -((int64_t)1 << shift);
    return v;
}

static const char *cstr(rd *r)
{
    const char *s = (const char *)r->p;
    while (avail(r, 1))
        if (*r->p++ == 0)
            return s;
    return NULL;
}

typedef struct {
    const unsigned char *line_str, *str; /* .debug_line_str, .debug_str */
    size_t line_str_size, str_size;
} strtabs;

enum {
    FORM_block = 0x09,
    FORM_data1 = 0x0b,
    FORM_data2 = 0x05,
    FORM_data4 = 0x06,
    FORM_data8 = 0x07,
    FORM_data16 = 0x1e,
    FORM_string = 0x08,
    FORM_strp = 0x0e,
    FORM_udata = 0x0f,
    FORM_line_strp = 0x1f,
    LNCT_path = 1
};

/* One attribute of a DWARF 5 directory or file entry; a string form's
 * text goes to *s (NULL if none). */
static void form_value(rd *r, uint64_t form, int offset_size, const strtabs *t, const char **s)
{
    uint64_t off;
    *s = NULL;
    switch (form) {
    case FORM_string:
        *s = cstr(r);
        break;
    case FORM_line_strp:
    case FORM_strp:
        off = u_n(r, offset_size);
        if (form == FORM_line_strp && t->line_str && off < t->line_str_size)
            *s = (const char *)t->line_str + off;
        else if (form == FORM_strp && t->str && off < t->str_size)
            *s = (const char *)t->str + off;
        break;
    case FORM_udata:
        uleb(r);
        break;
    case FORM_data1:
        u_n(r, 1);
        break;
    case FORM_data2:
        u_n(r, 2);
        break;
    case FORM_data4:
        u_n(r, 4);
        break;
    case FORM_data8:
        u_n(r, 8);
        break;
    case FORM_data16:
        u_n(r, 8);
        u_n(r, 8);
        break;
    case FORM_block:
        off = uleb(r);
        if (avail(r, off))
            r->p += off;
        break;
    default:
        r->bad = 1;
    }
}

/* The file entry number idx of a version 2-4 header's list at r. */
static const char *file_v4(rd r, uint64_t idx)
{
    for (uint64_t i = 1; !r.bad; i++) {
        const char *name = cstr(&r);
        if (!name || !*name)
            return NULL;
        if (i == idx)
            return name;
        uleb(&r), uleb(&r), uleb(&r);
    }
    return NULL;
}

/* The file entry number idx of a version 5 header's list at r. */
static const char *file_v5(rd r, uint64_t idx, int offset_size, const strtabs *t)
{
    unsigned char nfmt = (unsigned char)u_n(&r, 1);
    uint64_t fmt[16][2];
    if (nfmt > 16)
        return NULL;
    for (int i = 0; i < nfmt; i++)
        fmt[i][0] = uleb(&r), fmt[i][1] = uleb(&r);
    uint64_t count = uleb(&r);
    for (uint64_t k = 0; k < count && !r.bad; k++)
        for (int i = 0; i < nfmt; i++) {
            const char *s;
            form_value(&r, fmt[i][1], offset_size, t, &s);
            if (k == idx && fmt[i][0] == LNCT_path)
                return s;
        }
    return NULL;
}

/* Runs one unit's line program; 1 with *file_out and *line if it covers pc. */
static int search_unit(rd r, uint64_t pc, const strtabs *t, const char **file_out, int *line)
{
    int offset_size = 4;
    uint64_t len = u_n(&r, 4);
    if (len == 0xffffffffu)
        len = u_n(&r, 8), offset_size = 8;
    if (r.bad || len > (uint64_t)(r.end - r.p))
        return 0;
    r.end = r.p + len;
    unsigned version = (unsigned)u_n(&r, 2);
    if (version < 2 || version > 5)
        return 0;
    if (version >= 5)
        u_n(&r, 2); /* address and selector sizes */
    uint64_t hlen = u_n(&r, offset_size);
    if (r.bad || hlen > (uint64_t)(r.end - r.p))
        return 0;
    const unsigned char *prog = r.p + hlen;
    unsigned min_inst = (unsigned)u_n(&r, 1);
    if (version >= 4)
        u_n(&r, 1); /* max ops per instruction */
    u_n(&r, 1);     /* default is_stmt */
    int line_base = (signed char)u_n(&r, 1);
    unsigned line_range = (unsigned)u_n(&r, 1), opcode_base = (unsigned)u_n(&r, 1);
    if (r.bad || line_range == 0 || opcode_base == 0)
        return 0;
    const unsigned char *std_len = r.p;
    if (!avail(&r, opcode_base - 1))
        return 0;
    r.p += opcode_base - 1;
    rd files = r; /* directories, then files */
    if (version < 5) {
        while (!r.bad) { /* skip the directories */
            const char *d = cstr(&r);
            if (!d || !*d)
                break;
        }
        files = r;
    } else {
        unsigned char nfmt = (unsigned char)u_n(&r, 1);
        uint64_t fmt[16][2];
        if (nfmt > 16)
            return 0;
        for (int i = 0; i < nfmt; i++)
            fmt[i][0] = uleb(&r), fmt[i][1] = uleb(&r);
        uint64_t count = uleb(&r);
        for (uint64_t k = 0; k < count && !r.bad; k++)
            for (int i = 0; i < nfmt; i++) {
                const char *s;
                form_value(&r, fmt[i][1], offset_size, t, &s);
            }
        files = r;
    }
    if (r.bad || prog > r.end)
        return 0;
    r.p = prog;

    uint64_t addr = 0, file = 1, ln = 1;
    uint64_t prev_addr = 0, prev_file = 0, prev_line = 0;
    int have_prev = 0, found = 0;
    uint64_t found_file = 0, found_line = 0;
#define ROW()                                                                                      \
    do {                                                                                           \
        if (have_prev && prev_addr <= pc && pc < addr) {                                           \
            found = 1, found_file = prev_file, found_line = prev_line;                             \
        }                                                                                          \
        prev_addr = addr, prev_file = file, prev_line = ln, have_prev = 1;                         \
    } while (0)
    while (!found && r.p < r.end && !r.bad) {
        unsigned op = (unsigned)u_n(&r, 1);
        if (op >= opcode_base) { /* special opcode */
            unsigned adj = op - opcode_base;
            addr += (uint64_t)(adj / line_range) * min_inst;
            ln += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
            ROW();
            continue;
        }
        switch (op) {
        case 0: { /* extended */
            uint64_t n = uleb(&r);
            if (n == 0 || !avail(&r, n))
                return 0;
            const unsigned char *next = r.p + n;
            unsigned sub = (unsigned)u_n(&r, 1);
            if (sub == 1) { /* end of sequence */
                ROW();
                have_prev = 0, addr = 0, file = 1, ln = 1;
            } else if (sub == 2 && n - 1 <= 8) {
                addr = u_n(&r, (int)(n - 1));
            }
            r.p = next;
            break;
        }
        case 1:
            ROW();
            break; /* copy */
        case 2:
            addr += uleb(&r) * min_inst;
            break;
        case 3:
            ln += (uint64_t)sleb(&r);
            break;
        case 4:
            file = uleb(&r);
            break;
        case 8:
            addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
            break;
        case 9:
            addr += u_n(&r, 2);
            break;
        default: /* skip its operands */
            for (unsigned i = 0; i < std_len[op - 1]; i++)
                uleb(&r);
        }
    }
#undef ROW
    if (!found)
        return 0;
    const char *name =
        version >= 5 ? file_v5(files, found_file, offset_size, t) : file_v4(files, found_file);
    if (!name)
        return 0;
    *file_out = name;
    *line = (int)found_line;
    return 1;
}

int mpd__line_of_pc(uintptr_t pc, char *file, size_t fsz, int *line)
{
    if (!pc || fsz == 0)
        return 0;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return 0;
    size_t size = (size_t)st.st_size;
    const unsigned char *base = map;
    const Elf64_Ehdr *eh = map;
    int ok = 0;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum ||
        eh->e_shstrndx >= eh->e_shnum)
        goto out;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    const Elf64_Shdr *names = &sh[eh->e_shstrndx];
    if (names->sh_offset > size || names->sh_size > size - names->sh_offset)
        goto out;
    const unsigned char *line_sec = NULL;
    size_t line_size = 0;
    strtabs t = {0};
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= names->sh_size || sh[i].sh_offset > size ||
            sh[i].sh_size > size - sh[i].sh_offset || (sh[i].sh_flags & SHF_COMPRESSED))
            continue;
        const char *nm = (const char *)base + names->sh_offset + sh[i].sh_name;
        size_t room = names->sh_size - sh[i].sh_name;
        const unsigned char *data = base + sh[i].sh_offset;
        if (strncmp(nm, ".debug_line", room) == 0)
            line_sec = data, line_size = sh[i].sh_size;
        else if (strncmp(nm, ".debug_line_str", room) == 0)
            t.line_str = data, t.line_str_size = sh[i].sh_size;
        else if (strncmp(nm, ".debug_str", room) == 0)
            t.str = data, t.str_size = sh[i].sh_size;
    }
    if (!line_sec)
        goto out;
    uint64_t addr = (uint64_t)(pc - load_bias);
    rd r = {line_sec, line_sec + line_size, 0};
    while (r.p < r.end && !ok) {
        const char *name;
        int ln;
        if (search_unit(r, addr, &t, &name, &ln)) {
            size_t n = strnlen(name, fsz - 1);
            memcpy(file, name, n);
            file[n] = 0;
            *line = ln;
            ok = 1;
            break;
        }
        /* the next unit */
        uint64_t len = u_n(&r, 4);
        if (len == 0xffffffffu)
            len = u_n(&r, 8);
        if (r.bad || len > (uint64_t)(r.end - r.p))
            break;
        r.p += len;
    }
out:
    munmap(map, size);
    return ok;
}
