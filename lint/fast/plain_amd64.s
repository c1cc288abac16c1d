#include "textflag.h"

// func plainRun16(p *byte, n int) int
//
// Sixteen bytes at a time (SSE2): the index in p[:n] of the first byte that
// is '"', '\\', a control character (< 0x20) or >= 0x80, else the length
// of the whole 16-byte blocks read (n rounded down to a multiple of 16).
TEXT ·plainRun16(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	MOVOU quotes<>(SB), X1
	MOVOU backslashes<>(SB), X2
	MOVOU controls<>(SB), X3
	SUBQ $16, CX
	JL   done

loop:
	CMPQ AX, CX
	JG   done
	MOVOU (SI)(AX*1), X0
	MOVOU X0, X4
	PCMPEQB X1, X4
	MOVOU X0, X5
	PCMPEQB X2, X5
	POR  X5, X4
	MOVOU X0, X6
	PMINUB X3, X6
	PCMPEQB X0, X6
	POR  X6, X4
	POR  X0, X4
	PMOVMSKB X4, DX
	TESTL DX, DX
	JNZ  found
	ADDQ $16, AX
	JMP  loop

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	MOVQ AX, ret+16(FP)
	RET

DATA quotes<>+0(SB)/8, $0x2222222222222222
DATA quotes<>+8(SB)/8, $0x2222222222222222
GLOBL quotes<>(SB), (RODATA|NOPTR), $16
DATA backslashes<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA backslashes<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL backslashes<>(SB), (RODATA|NOPTR), $16
DATA controls<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA controls<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL controls<>(SB), (RODATA|NOPTR), $16
