package io.ckc.protocol.records;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.protocol.kafka.Json;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A report that counts its nodes instead of listing them, as JSON, and one of the format before it. */
class ConnectionReportTest {

    private final ObjectMapper mapper = Json.newMapper();

    @Test
    void aCountingReportRoundTripsAndAListingOneOfThePreviousFormatStillLists() throws Exception {
        ConnectionReport counting = new ConnectionReport("gw-1", 5L, 1_000L, 0, 1, 2, Map.of("a", 9L), List.of(), 40_000);
        ConnectionReport read = Json.read(mapper, Json.write(mapper, counting), ConnectionReport.class);
        assertThat(read).isEqualTo(counting);
        assertThat(read.listed()).isFalse();
        assertThat(read.connectedCount()).isEqualTo(40_000);

        byte[] previous = """
                {"gatewayId":"gw-1","pingSentAtMicros":5,"windowMs":1000,"part":0,"parts":1,"pinged":1,
                 "pongArrivalMicros":{"a":9},"connected":["a","b"]}""".getBytes(StandardCharsets.UTF_8);
        ConnectionReport listing = Json.read(mapper, previous, ConnectionReport.class);
        assertThat(listing.listed()).isTrue();
        assertThat(listing.connectedCount()).isEqualTo(2);
    }
}
