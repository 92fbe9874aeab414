package dispatch

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestCopyCallerCopiesEveryField sets every field the wire.Caller message
// has (a field added to plugin.proto later included) and holds copyCaller
// to proto.Clone, so the plugin sees the whole caller.
func TestCopyCallerCopiesEveryField(t *testing.T) {
	c := &wire.Caller{}
	m := c.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		var v protoreflect.Value
		switch f.Kind() {
		case protoreflect.StringKind:
			v = protoreflect.ValueOfString("v-" + string(f.Name()))
		case protoreflect.BoolKind:
			v = protoreflect.ValueOfBool(true)
		case protoreflect.Int64Kind:
			v = protoreflect.ValueOfInt64(int64(100 + i))
		default:
			t.Fatalf("field %s has kind %s: teach this test and copyCaller about it", f.Name(), f.Kind())
		}
		m.Set(f, v)
	}
	got := copyCaller(c)
	if !proto.Equal(got, c) {
		t.Errorf("copyCaller(%v) = %v, want every field copied", c, got)
	}
	if got == c {
		t.Error("copyCaller returned its argument, want a copy the dispatcher may change")
	}
}
