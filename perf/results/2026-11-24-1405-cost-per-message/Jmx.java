import javax.management.*;
import javax.management.remote.*;
import java.util.*;

public class Jmx {
    public static void main(String[] a) throws Exception {
        JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + a[0] + "/jmxrmi"));
        MBeanServerConnection s = c.getMBeanServerConnection();
        Map<String, Long> before = counts(s);
        Thread.sleep(Long.parseLong(a[1]) * 1000);
        Map<String, Long> after = counts(s);
        double secs = Long.parseLong(a[1]);
        after.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue() - before.getOrDefault(y.getKey(), 0L), x.getValue() - before.getOrDefault(x.getKey(), 0L)))
            .limit(25).forEach(e -> System.out.printf("%-60s %10.1f/s%n", e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / secs));
        c.close();
    }
    static Map<String, Long> counts(MBeanServerConnection s) throws Exception {
        Map<String, Long> m = new TreeMap<>();
        for (ObjectName n : s.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
            m.merge(n.getKeyProperty("request") + " v" + n.getKeyProperty("version"), ((Number) s.getAttribute(n, "Count")).longValue(), Long::sum);
        }
        for (ObjectName n : s.queryNames(new ObjectName("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,*"), null)) {
            m.put("messagesIn " + n.getKeyProperty("topic"), ((Number) s.getAttribute(n, "Count")).longValue());
        }
        for (ObjectName n : s.queryNames(new ObjectName("kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec,*"), null)) {
            m.put("fetchReq " + n.getKeyProperty("topic"), ((Number) s.getAttribute(n, "Count")).longValue());
        }
        return m;
    }
}
