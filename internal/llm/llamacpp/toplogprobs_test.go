package llamacpp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseTopLogprobs(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       map[int]float64
		err        string
	}{
		{name: "llama-server shape", body: `{"index":0,"content":"B","prompt":"State:\n{\"completion_probabilities\": [{\"top_logprobs\":[{\"id\":1,\"logprob\":0}]}]} }","stop":true,
			"generation_settings":{"n_probs":256,"samplers":["top_k","temp"],"lora":[],"x":null,"y":false},
			"completion_probabilities":[{"id":1066,"token":"B","bytes":[66],"logprob":-0.1,
			"top_logprobs":[{"id":1066,"token":"B","bytes":[66],"logprob":-0.1},{"id":1065,"token":"A \"q\" \\","bytes":[65],"logprob":-3.4028234663852886e+38},{"token":"x","id":7,"logprob":-2.5E-1}]}]}`,
			want: map[int]float64{1066: -0.1, 1065: -3.4028234663852886e+38, 7: -0.25}},
		{name: "only the first position", body: `{"completion_probabilities":[{"top_logprobs":[{"id":1,"logprob":-1}]},{"top_logprobs":[{"id":2,"logprob":-2}]}]}`,
			want: map[int]float64{1: -1}},
		{name: "no probabilities", body: `{"content":"A","completion_probabilities":[]}`, err: "did not return token probabilities"},
		{name: "no field", body: `{"content":"A"}`, err: "did not return token probabilities"},
		{name: "truncated", body: `{"completion_probabilities":[{"top_logprobs":[{"id":1,"logprob":-1}`, err: "not the expected JSON"},
		{name: "trailing garbage", body: `{"completion_probabilities":[]} x`, err: "not the expected JSON"},
		{name: "bad id", body: `{"completion_probabilities":[{"top_logprobs":[{"id":"one","logprob":-1}]}]}`, err: "not the expected JSON"},
	} {
		var ids []int
		for id := range tc.want {
			ids = append(ids, id)
		}
		ids = append(ids, 424242) // not in any list
		vals, has, err := parseTopLogprobs([]byte(tc.body), ids)
		got := map[int]float64{}
		for i, id := range ids {
			if err == nil && has[i] {
				got[id] = vals[i]
			}
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v %v", tc.name, got, err)
		}
		// Same answer as encoding/json.
		var ref struct {
			P []struct {
				Top []struct {
					ID      int     `json:"id"`
					Logprob float64 `json:"logprob"`
				} `json:"top_logprobs"`
			} `json:"completion_probabilities"`
		}
		if err := json.Unmarshal([]byte(tc.body), &ref); err != nil {
			t.Fatalf("%s: reference: %v", tc.name, err)
		}
		for _, e := range ref.P[0].Top {
			if got[e.ID] != e.Logprob {
				t.Errorf("%s: id %d: %v, encoding/json %v", tc.name, e.ID, got[e.ID], e.Logprob)
			}
		}
	}
}
