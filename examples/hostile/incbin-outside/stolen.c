/* Hostile fixture incbin-outside: the assembler is asked to embed /etc/passwd in the
 * library (and so in its KAT log); the sandboxed build sees no such file. */
__asm__(".section .rodata\n"
        ".globl hostile_stolen\n"
        "hostile_stolen:\n"
        ".incbin \"/etc/passwd\"\n"
        ".byte 0\n"
        ".previous\n");
