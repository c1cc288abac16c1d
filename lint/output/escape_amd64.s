#include "textflag.h"

// func copyEscape16(dst *byte, room int, src *byte, n int) (i, o int)
//
// Sixteen bytes at a time (SSE2): each 16-byte block of src[:n] left is
// stored at dst+o, then checked; a block of plain bytes (0x20-0x7e but '"'
// and '\\': those whose value plus one, signed, is above 0x20 and that are
// neither '"' nor '\\') is done, a '"' or '\\' is escaped with a backslash
// when room-o >= n-i+18, and any other byte stops it. The last fewer than
// 16 bytes are read as the 16 bytes from the first of them when those lie
// in one 4 KiB page (reading past src[n-1] within its page), else left to
// the caller. i is the index in src of the byte it stopped at (n: all
// done), o where that byte goes in dst.
TEXT ·copyEscape16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), R9
	MOVQ room+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	// DI is dst plus the number of escapes so far (o-i), so that byte i
	// goes to (DI)(AX*1); an escape needs room-o >= n-i+18, that is
	// DI <= R8 = dst+room-n-18.
	MOVQ R9, DI
	ADDQ R9, R8
	SUBQ CX, R8
	SUBQ $18, R8
	XORQ AX, AX
	MOVOU esc01<>(SB), X4
	MOVOU esc20<>(SB), X5
	MOVOU esc22<>(SB), X6
	MOVOU esc5c<>(SB), X7
	LEAQ -16(CX), R10
	CMPQ AX, R10
	JG   tail

loop:
	MOVOU (SI)(AX*1), X0
	MOVOU X0, (DI)(AX*1)
	MOVO X0, X1
	PADDB X4, X1
	PCMPGTB X5, X1
	MOVO X0, X2
	PCMPEQB X6, X2
	PCMPEQB X7, X0
	POR  X2, X0
	PANDN X1, X0
	PMOVMSKB X0, BX
	CMPL BX, $0xffff
	JNE  found
	ADDQ $16, AX
	CMPQ AX, R10
	JLE  loop
	JMP  tail

found:
	NOTL BX
	BSFL BX, BX
	ADDQ BX, AX
	MOVBLZX (SI)(AX*1), DX
	CMPB DX, $0x22
	JEQ  escape
	CMPB DX, $0x5c
	JNE  done

escape:
	CMPQ DI, R8
	JGT  done
	MOVB $0x5c, (DI)(AX*1)
	MOVB DX, 1(DI)(AX*1)
	INCQ DI
	INCQ AX
	CMPQ AX, R10
	JLE  loop

tail:
	// r = n-i bytes left, 0 to 15.
	MOVQ CX, R12
	SUBQ AX, R12
	JLE  done
	LEAQ (SI)(AX*1), R11
	MOVQ R11, R13
	ANDQ $0xfff, R13
	CMPQ R13, $0xff0
	JA   done
	MOVOU (R11), X0
	MOVOU X0, (DI)(AX*1)
	MOVO X0, X1
	PADDB X4, X1
	PCMPGTB X5, X1
	MOVO X0, X2
	PCMPEQB X6, X2
	PCMPEQB X7, X0
	POR  X2, X0
	PANDN X1, X0
	PMOVMSKB X0, BX
	NOTL BX
	BSFL BX, BX
	CMPQ BX, R12
	JAE  rest
	ADDQ BX, AX
	MOVBLZX (SI)(AX*1), DX
	CMPB DX, $0x22
	JEQ  tailescape
	CMPB DX, $0x5c
	JNE  done

tailescape:
	CMPQ DI, R8
	JGT  done
	MOVB $0x5c, (DI)(AX*1)
	MOVB DX, 1(DI)(AX*1)
	INCQ DI
	INCQ AX
	JMP  tail

rest:
	MOVQ CX, AX

done:
	MOVQ AX, i+32(FP)
	SUBQ R9, DI
	ADDQ AX, DI
	MOVQ DI, o+40(FP)
	RET

DATA esc01<>+0(SB)/8, $0x0101010101010101
DATA esc01<>+8(SB)/8, $0x0101010101010101
GLOBL esc01<>(SB), (RODATA|NOPTR), $16
DATA esc20<>+0(SB)/8, $0x2020202020202020
DATA esc20<>+8(SB)/8, $0x2020202020202020
GLOBL esc20<>(SB), (RODATA|NOPTR), $16
DATA esc22<>+0(SB)/8, $0x2222222222222222
DATA esc22<>+8(SB)/8, $0x2222222222222222
GLOBL esc22<>(SB), (RODATA|NOPTR), $16
DATA esc5c<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA esc5c<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL esc5c<>(SB), (RODATA|NOPTR), $16
