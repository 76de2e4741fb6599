// sarama (a pure Go client: its own protocol code and codecs) against a broker. By hand, not in CI:
// Debian 12's golang-github-shopify-sarama-dev (sarama 1.22.1) and golang-go, built in GOPATH mode
// from Debian's sources, nothing downloaded:
//
//	apt-get install -y golang-go golang-github-shopify-sarama-dev
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o /tmp/sarama_check ./compat/sarama
//	compat/with_broker.sh /tmp/sarama_check        # or: /tmp/sarama_check HOST:PORT
//
// Scenario: the cluster admin creates a topic; a sync producer (acks=all, Kafka 2.1.0 protocol) sends
// keyed messages with headers under every codec sarama 1.22 sends at Produce v3, and the offsets come
// back dense per partition; a zstd batch at Produce v3 is refused with UNSUPPORTED_COMPRESSION_TYPE
// (Kafka's rule: zstd needs Produce v7, which sarama 1.22 never sends); a consumer group reads every
// message back identical and commits each partition's end; the group is described and the topic deleted.
// Ends with `N passed, M failed`; exit 1 on failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

const (
	partitions = 3
	perCodec   = 100
	timeout    = 60 * time.Second
)

type check struct {
	broker string
	topic  string
	group  string
	cfg    *sarama.Config
	admin  sarama.ClusterAdmin
	sent   map[string]string // "partition/offset" -> value
}

func (c *check) createTopic() error {
	admin, err := sarama.NewClusterAdmin([]string{c.broker}, c.cfg)
	if err != nil {
		return err
	}
	c.admin = admin
	if err := admin.CreateTopic(c.topic, &sarama.TopicDetail{NumPartitions: partitions, ReplicationFactor: 1}, false); err != nil {
		return err
	}
	topics, err := admin.ListTopics()
	if err != nil {
		return err
	}
	if topics[c.topic].NumPartitions != partitions {
		return fmt.Errorf("listed with %d partitions", topics[c.topic].NumPartitions)
	}
	return nil
}

func (c *check) produce(codec sarama.CompressionCodec) ([]*sarama.ProducerMessage, error) {
	cfg := *c.cfg
	cfg.Producer.Compression = codec
	p, err := sarama.NewSyncProducer([]string{c.broker}, &cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	var msgs []*sarama.ProducerMessage
	for i := 0; i < perCodec; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: c.topic, Key: sarama.StringEncoder(fmt.Sprintf("key-%d", i%7)),
			Value:   sarama.StringEncoder(fmt.Sprintf("%v value %d", codec, i)),
			Headers: []sarama.RecordHeader{{Key: []byte("n"), Value: []byte(fmt.Sprint(i))}}})
	}
	return msgs, p.SendMessages(msgs)
}

func (c *check) produceUnder(codec sarama.CompressionCodec) func() error {
	return func() error {
		msgs, err := c.produce(codec)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			c.sent[fmt.Sprintf("%d/%d", m.Partition, m.Offset)] = fmt.Sprint(m.Value)
		}
		for p := int32(0); p < partitions; p++ {
			var offs []int64
			for k := range c.sent {
				var q int32
				var o int64
				fmt.Sscanf(k, "%d/%d", &q, &o)
				if q == p {
					offs = append(offs, o)
				}
			}
			sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
			for i, o := range offs {
				if o != int64(i) {
					return fmt.Errorf("partition %d: offsets not dense from 0 (%d at %d)", p, o, i)
				}
			}
		}
		return nil
	}
}

func (c *check) zstdRefused() error {
	_, err := c.produce(sarama.CompressionZSTD)
	var pe sarama.ProducerErrors
	if !errors.As(err, &pe) || len(pe) != perCodec {
		return fmt.Errorf("expected %d refused messages, got %v", perCodec, err)
	}
	for _, e := range pe {
		if !errors.Is(e.Err, sarama.ErrUnsupportedCompressionType) {
			return fmt.Errorf("refused with %v, expected UNSUPPORTED_COMPRESSION_TYPE", e.Err)
		}
	}
	return nil
}

type handler struct {
	mu   sync.Mutex
	got  map[string]string
	want int
	done chan struct{}
	once sync.Once
}

func (h *handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		h.mu.Lock()
		h.got[fmt.Sprintf("%d/%d", m.Partition, m.Offset)] = string(m.Value)
		n := len(h.got)
		h.mu.Unlock()
		s.MarkMessage(m, "")
		if n >= h.want {
			h.once.Do(func() { close(h.done) })
		}
	}
	return nil
}

func (c *check) groupReadsEverything() error {
	g, err := sarama.NewConsumerGroup([]string{c.broker}, c.group, c.cfg)
	if err != nil {
		return err
	}
	h := &handler{got: map[string]string{}, want: len(c.sent), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{c.topic}, h); err != nil {
				return
			}
		}
	}()
	select {
	case <-h.done:
	case <-time.After(timeout):
	}
	cancel()
	if err := g.Close(); err != nil { // commits what was marked
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.got) != len(c.sent) {
		return fmt.Errorf("read %d of %d", len(h.got), len(c.sent))
	}
	for k, v := range c.sent {
		if h.got[k] != v {
			return fmt.Errorf("message %s: read %q, sent %q", k, h.got[k], v)
		}
	}
	offsets, err := c.admin.ListConsumerGroupOffsets(c.group, map[string][]int32{c.topic: {0, 1, 2}})
	if err != nil {
		return err
	}
	for p := int32(0); p < partitions; p++ {
		n := int64(0)
		for k := range c.sent {
			var q int32
			var o int64
			fmt.Sscanf(k, "%d/%d", &q, &o)
			if q == p {
				n++
			}
		}
		if b := offsets.Blocks[c.topic][p]; b == nil || b.Offset != n {
			return fmt.Errorf("partition %d: committed %v, end %d", p, b, n)
		}
	}
	return nil
}

func (c *check) groupDescribedTopicDeleted() error {
	groups, err := c.admin.DescribeConsumerGroups([]string{c.group})
	if err != nil {
		return err
	}
	if len(groups) != 1 || groups[0].GroupId != c.group || groups[0].State != "Empty" || groups[0].ProtocolType != "consumer" {
		return fmt.Errorf("described %+v", groups)
	}
	if err := c.admin.DeleteTopic(c.topic); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		topics, err := c.admin.ListTopics()
		if err != nil {
			return err
		}
		if _, ok := topics[c.topic]; !ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still listed", c.topic)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sarama_check HOST:PORT (or through compat/with_broker.sh)")
		os.Exit(2)
	}
	suffix := rand.New(rand.NewSource(time.Now().UnixNano())).Int31()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V2_1_0_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = 0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	c := &check{broker: os.Args[1], topic: fmt.Sprintf("sarama_check_%d", suffix), group: fmt.Sprintf("sarama_group_%d", suffix),
		cfg: cfg, sent: map[string]string{}}
	fmt.Printf("sarama (Debian's 1.22.1) against %s, topic %s\n", c.broker, c.topic)
	steps := []struct {
		name string
		run  func() error
	}{
		{fmt.Sprintf("create a topic of %d partitions", partitions), c.createTopic},
		{"produce uncompressed, acks=all: dense offsets from 0", c.produceUnder(sarama.CompressionNone)},
		{"produce gzip", c.produceUnder(sarama.CompressionGZIP)},
		{"produce snappy", c.produceUnder(sarama.CompressionSnappy)},
		{"produce lz4", c.produceUnder(sarama.CompressionLZ4)},
		{"zstd at Produce v3: UNSUPPORTED_COMPRESSION_TYPE", c.zstdRefused},
		{"a consumer group reads everything identical and commits each partition's end", c.groupReadsEverything},
		{"DescribeGroups, DeleteTopics", c.groupDescribedTopicDeleted},
	}
	passed, failed := 0, 0
	for _, s := range steps {
		if c.admin == nil && s.name != steps[0].name {
			failed++
			fmt.Printf("FAIL %s\n     no admin client (the first step failed)\n", s.name)
			continue
		}
		if err := s.run(); err != nil {
			failed++
			fmt.Printf("FAIL %s\n     %v\n", s.name, err)
		} else {
			passed++
			fmt.Printf("PASS %s\n", s.name)
		}
	}
	if c.admin != nil {
		c.admin.Close()
	}
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
