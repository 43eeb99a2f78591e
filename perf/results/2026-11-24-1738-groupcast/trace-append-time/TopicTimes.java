import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;
import java.time.Duration;
import java.util.*;

/** Prints, per topic, record count and first/last record timestamps since SINCE_MS ago: TopicTimes SINCE_MS topic... */
public class TopicTimes {
  public static void main(String[] a) {
    long since = System.currentTimeMillis() - Long.parseLong(a[0]);
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:9092");
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    try (var c = new KafkaConsumer<byte[], byte[]>(p)) {
      for (int i = 1; i < a.length; i++) {
        String topic = a[i];
        List<TopicPartition> parts = new ArrayList<>();
        for (var info : c.partitionsFor(topic)) parts.add(new TopicPartition(topic, info.partition()));
        c.assign(parts);
        Map<TopicPartition, Long> q = new HashMap<>();
        parts.forEach(tp -> q.put(tp, since));
        var offs = c.offsetsForTimes(q);
        var ends = c.endOffsets(parts);
        for (var tp : parts) { var o = offs.get(tp); c.seek(tp, o == null ? ends.get(tp) : o.offset()); }
        List<Long> ts = new ArrayList<>();
        long idle = System.currentTimeMillis();
        while (System.currentTimeMillis() - idle < 3000) {
          var rs = c.poll(Duration.ofMillis(200));
          if (!rs.isEmpty()) idle = System.currentTimeMillis();
          for (var r : rs) ts.add(r.timestamp());
        }
        Collections.sort(ts);
        if (ts.isEmpty()) { System.out.println(topic + " none"); continue; }
        int start = 0;
        for (int k = 1; k <= ts.size(); k++) {
          if (k == ts.size() || ts.get(k) - ts.get(k - 1) > 1000) {
            long first = ts.get(start), last = ts.get(k - 1);
            System.out.printf("%s cluster records=%d first=%d last=%d span_ms=%d p50_ms=%d%n", topic, k - start, first,
                last, last - first, ts.get(start + (k - start) / 2) - first);
            if (System.getenv("BUCKET_MS") != null && k - start > 100) {
              long b = Long.parseLong(System.getenv("BUCKET_MS"));
              StringBuilder sb = new StringBuilder("  per " + b + " ms from first:");
              long[] n = new long[(int) ((last - first) / b) + 1];
              for (int j = start; j < k; j++) n[(int) ((ts.get(j) - first) / b)]++;
              for (long x : n) sb.append(' ').append(x);
              System.out.println(sb);
            }
            start = k;
          }
        }
      }
    }
  }
}
