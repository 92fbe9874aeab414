#include "textflag.h"

// func plainBlocks(s string) int
//
// Thirty-two, then sixteen bytes a step (SSE2, which every amd64 processor has): a byte
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

	// Thirty-two bytes a step while they last: two blocks' marks ORed,
	// one branch.
	MOVQ CX, BX
	ANDQ $-32, BX

loop32:
	CMPQ DX, BX
	JAE  loop
	MOVOU (SI)(DX*1), X0
	MOVOU 16(SI)(DX*1), X4
	MOVO  X8, X1
	PCMPGTB X0, X1
	MOVO  X8, X5
	PCMPGTB X4, X5
	MOVO  X0, X2
	PAND  X9, X2
	PCMPEQB X10, X2
	MOVO  X4, X6
	PAND  X9, X6
	PCMPEQB X10, X6
	MOVO  X0, X3
	PAND  X11, X3
	PCMPEQB X12, X3
	MOVO  X4, X7
	PAND  X11, X7
	PCMPEQB X12, X7
	MOVO  X0, X14
	PCMPEQB X13, X14
	MOVO  X4, X15
	PCMPEQB X13, X15
	POR   X2, X1
	POR   X3, X14
	POR   X6, X5
	POR   X7, X15
	POR   X14, X1
	POR   X15, X5
	MOVO  X1, X0
	POR   X5, X0
	PMOVMSKB X0, AX
	TESTL AX, AX
	JNZ   found32
	ADDQ  $32, DX
	JMP   loop32

found32:
	// The first block's own marks, else the second's.
	PMOVMSKB X1, AX
	TESTL AX, AX
	JNZ   found
	PMOVMSKB X5, AX
	ADDQ  $16, DX
	JMP   found

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
