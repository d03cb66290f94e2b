/* tl_page.S: the timeline's HTML viewer (timeline/viewer.html) in the
 * library, as one NUL-terminated string: a.out writes the page with no file
 * of ours to find at run time.  The path is relative to runtime/, where the
 * library is built (the Makefile makes this object depend on the page). */
        .section .rodata
        .globl mpd__tl_page
        .type mpd__tl_page, %object
mpd__tl_page:
        .incbin "timeline/viewer.html"
        .byte 0
        .size mpd__tl_page, . - mpd__tl_page
        .section .note.GNU-stack,"",%progbits
