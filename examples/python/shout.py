#!/usr/bin/env python3
"""A CKC application outside Java: answers every message that nodes send on a channel.

It reads channel CHANNEL (Kafka topic app.CHANNEL) and sends each message's payload back to the node
that sent it, in upper case, as a unicast on ckc.to-mn. The answer's id is derived from the request's,
so a replay after a restart sends the same id and the node drops the repeat. Records and topics are
described in docs/applications.md.

Needs the confluent-kafka client (Debian: apt-get install python3-confluent-kafka).

    python3 examples/python/shout.py --bootstrap 127.0.0.1:9092 --channel shout
"""
import argparse
import base64
import hashlib
import json
import sys
import time
import uuid

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer

SENDER = "shout"


def answer_id(message_id):
    """The same name-based UUID (MD5, version 3) as Java's UUID.nameUUIDFromBytes("shout:" + id)."""
    digest = bytearray(hashlib.md5(f"{SENDER}:{message_id}".encode("utf-8")).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(digest)))


def answer(message):
    """The unicast that answers one app message (the record of app.<channel>), or None if it is not one."""
    node, message_id, payload = message.get("mnId"), message.get("messageId"), message.get("payload")
    if not node or not message_id or payload is None:
        return None
    text = base64.b64decode(payload).decode("utf-8", errors="replace")
    return {
        "messageId": answer_id(message_id),
        "sender": SENDER,
        "recipient": node,
        "payload": base64.b64encode(text.upper().encode("utf-8")).decode("ascii"),
        "ttlMs": None,
        "createdAt": int(time.time() * 1000),
        "receipt": False,
    }


def commit(consumer):
    """Commits the offsets of what was answered; nothing to commit is not an error."""
    try:
        consumer.commit(asynchronous=False)
    except KafkaException as e:
        if e.args[0].code() != KafkaError._NO_OFFSET:
            raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--channel", default="shout")
    parser.add_argument("--topic-prefix", default="ckc.")
    parser.add_argument("--app-topic-prefix", default="app.")
    parser.add_argument("--group", default="ckc-example-shout", help="the Kafka consumer group")
    parser.add_argument("--max-messages", type=int, default=0, help="stop after answering this many (0: never)")
    args = parser.parse_args()

    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": args.group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    producer = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True, "linger.ms": 1})
    consumer.subscribe([args.app_topic_prefix + args.channel])
    to_mn = args.topic_prefix + "to-mn"
    answered = skipped = 0
    print(f"shout: answering {args.app_topic_prefix + args.channel} on {to_mn}", flush=True)
    try:
        while args.max_messages <= 0 or answered < args.max_messages:
            record = consumer.poll(0.5)
            if record is None:
                continue
            if record.error():
                if record.error().code() != KafkaError._PARTITION_EOF:
                    print(f"shout: {record.error()}", file=sys.stderr, flush=True)
                continue
            try:
                reply = answer(json.loads(record.value()))
            except (ValueError, UnicodeDecodeError):
                reply = None
            if reply is None:
                skipped += 1  # not an app message: counted, never answered
                continue
            # Keyed by the recipient, as every record of ckc.to-mn: one node's answers stay in order.
            producer.produce(to_mn, key=reply["recipient"].encode("utf-8"), value=json.dumps(reply).encode("utf-8"))
            producer.poll(0)
            answered += 1
            if answered % 100 == 0:
                producer.flush()
                commit(consumer)  # offsets only after the answers are written
    finally:
        producer.flush()
        commit(consumer)
        consumer.close()
    print(f"shout: answered={answered} skipped={skipped}", flush=True)


if __name__ == "__main__":
    main()
