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


def varint(data, i):
    """A Protocol Buffers varint at data[i]: its value and where the next field starts."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7


def fields(data):
    """One Protocol Buffers message as {field number: value}: an int, or bytes for strings, bytes and messages."""
    found, i = {}, 0
    while i < len(data):
        key, i = varint(data, i)
        wire = key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 2:
            size, i = varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, i = data[i:i + size], i + size
        else:
            raise ValueError(f"wire type {wire} is not in records.proto")
        found[key >> 3] = value
    return found


def app_message(value):
    """(node id, message id, payload) of a record of app.<channel>.

    CKC writes it in binary: the byte 0x01, then the AppMessage of records.proto (message_id = 1, mn_id = 2,
    payload = 5); a program with a protobuf library reads it with that file. Records of before 2026-11-28 are JSON.
    """
    if value[:1] == b"\x01":
        message = fields(value[1:])
        return (message.get(2, b"").decode("utf-8"), message.get(1, b"").decode("utf-8"), message.get(5, b""))
    message = json.loads(value)
    payload = message.get("payload")
    return message.get("mnId"), message.get("messageId"), None if payload is None else base64.b64decode(payload)


def answer(value):
    """The unicast that answers one record of app.<channel>, or None if it is not an app message.

    Written as JSON, which CKC reads beside its binary form on every topic: no protobuf library needed here.
    """
    node, message_id, payload = app_message(value)
    if not node or not message_id or payload is None:
        return None
    text = payload.decode("utf-8", errors="replace")
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
                reply = answer(record.value())
            except (ValueError, UnicodeDecodeError, IndexError):
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
