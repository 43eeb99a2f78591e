package io.ckc.client;

import java.util.UUID;

/** A message delivered to a mobile node by the core. */
public record ReceivedMessage(UUID messageId, String sender, byte[] payload) {
}
