import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.config.ConfigResource;
import java.util.*;

/** Sets message.timestamp.type (args[0]) on topics args[1..]. */
public class AppendTime {
  public static void main(String[] a) throws Exception {
    try (var admin = Admin.create(Map.of("bootstrap.servers", "127.0.0.1:9092"))) {
      Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
      for (int i = 1; i < a.length; i++) {
        ops.put(new ConfigResource(ConfigResource.Type.TOPIC, a[i]),
            List.of(new AlterConfigOp(new ConfigEntry("message.timestamp.type", a[0]), AlterConfigOp.OpType.SET)));
      }
      admin.incrementalAlterConfigs(ops).all().get();
      System.out.println("set " + a[0]);
    }
  }
}
