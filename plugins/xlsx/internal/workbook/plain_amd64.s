#include "textflag.h"

// func plainBlocks(s string) int
//
// Sixteen bytes a step (SSE2, which every amd64 processor has): a byte
// needs a look when, as a signed byte, it is below 0x20 (a control
// character, or 0x80 and above: not ASCII), or it is '"' or '&' (0x22,
// 0x26: equal with bit 2 cleared), '<' or '>' (0x3c, 0x3e: equal with bit
// 1 cleared), or '\\'. Returns the index of the first such byte, or the
// length of s rounded down to sixteen when no whole block holds one.
TEXT ·plainBlocks(SB), NOSPLIT, $0-24
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	ANDQ $-16, CX
	XORQ DX, DX
	MOVQ $0x2020202020202020, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $-0x0404040404040405, AX // 0xfb in every byte: bit 2 cleared
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	MOVQ $-0x0202020202020203, AX // 0xfd in every byte: bit 1 cleared
	MOVQ AX, X11
	PUNPCKLQDQ X11, X11
	MOVQ $0x3c3c3c3c3c3c3c3c, AX
	MOVQ AX, X12
	PUNPCKLQDQ X12, X12
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X13
	PUNPCKLQDQ X13, X13

loop:
	CMPQ DX, CX
	JAE  done
	MOVOU (SI)(DX*1), X0
	MOVO  X8, X1
	PCMPGTB X0, X1   // 0x20 > b, signed: control or not ASCII
	MOVO  X0, X2
	PAND  X9, X2
	PCMPEQB X10, X2  // '"' or '&'
	MOVO  X0, X3
	PAND  X11, X3
	PCMPEQB X12, X3  // '<' or '>'
	PCMPEQB X13, X0  // '\\'
	POR   X2, X1
	POR   X3, X0
	POR   X1, X0
	PMOVMSKB X0, AX
	TESTL AX, AX
	JNZ   found
	ADDQ  $16, DX
	JMP   loop

found:
	BSFL AX, AX
	ADDQ AX, DX

done:
	MOVQ DX, ret+16(FP)
	RET

// func asciiBlocks(b []byte) int
//
// Sixteen bytes a step: returns the index of the first byte of b at or
// above 0x80, or len(b) rounded down to sixteen when no whole block holds
// one (PMOVMSKB gathers the bytes' high bits).
TEXT ·asciiBlocks(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	ANDQ $-16, CX
	XORQ DX, DX

aloop:
	CMPQ DX, CX
	JAE  adone
	MOVOU (SI)(DX*1), X0
	PMOVMSKB X0, AX
	TESTL AX, AX
	JNZ   afound
	ADDQ  $16, DX
	JMP   aloop

afound:
	BSFL AX, AX
	ADDQ AX, DX

adone:
	MOVQ DX, ret+24(FP)
	RET
