#!/usr/bin/env python3
"""A CKC application outside Java: answers every message that nodes send on a channel.

It reads channel CHANNEL (Kafka topic app.CHANNEL) and sends each message's payload back to the node
that sent it, in upper case, as a unicast on ckc.to-mn, doing what docs/applications.md asks of an answer:
- its id is derived from the request's (see answer_id), so a replay after a restart sends the same id and
  the node drops the repeat;
- it copies the request's replyTo and correlation, so an MQTT 5 device that named a Response Topic gets the
  answer there with its Correlation Data;
- a request seen again (a node resends what its gateway never acknowledged) is not answered twice: the
  (node, message) ids of the last ten minutes are remembered.

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
from collections import OrderedDict

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer

SENDER = "shout"


def answer_id(message_id):
    """The answer's id: a name-based UUID of version 3 (MD5, no namespace) of the UTF-8 bytes of SENDER + ":" +
    the request's messageId, SENDER being this application's own name (the unicast's sender, not the node's id).
    The same as Java's UUID.nameUUIDFromBytes(("shout:" + messageId).getBytes(UTF_8)), which AppMessage.answer uses.
    """
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
    """The fields of a record of app.<channel> that an answer needs, as a dict: node, message_id, payload,
    reply_to (None for the node's inbox) and correlation (bytes or None).

    CKC writes it in binary: the byte 0x01, then the AppMessage of records.proto (message_id = 1, mn_id = 2,
    payload = 5, reply_to = 9, correlation = 10); a program with a protobuf library reads it with that file.
    An application may also have written JSON (bytes in base64), which is read the same.
    """
    if value[:1] == b"\x01":
        message = fields(value[1:])
        reply_to = message.get(9)
        return {"node": message.get(2, b"").decode("utf-8"), "message_id": message.get(1, b"").decode("utf-8"),
                "payload": message.get(5, b""), "reply_to": None if reply_to is None else reply_to.decode("utf-8"),
                "correlation": message.get(10)}
    message = json.loads(value)
    payload, correlation = message.get("payload"), message.get("correlation")
    return {"node": message.get("mnId"), "message_id": message.get("messageId"),
            "payload": None if payload is None else base64.b64decode(payload), "reply_to": message.get("replyTo"),
            "correlation": None if correlation is None else base64.b64decode(correlation)}


class RecentIds:
    """The (node, message) ids seen in the last window_s seconds, at most `most` of them, oldest forgotten first.

    A node sends a message again within seconds when its gateway did not acknowledge it, so ten minutes catches
    every such repeat while the memory stays bounded.
    """

    def __init__(self, window_s=600, most=100_000):
        self.window_s, self.most = window_s, most
        self.seen = OrderedDict()

    def first_time(self, key, now):
        while self.seen and (len(self.seen) >= self.most or next(iter(self.seen.values())) < now - self.window_s):
            self.seen.popitem(last=False)
        if key in self.seen:
            return False
        self.seen[key] = now
        return True


def answer(message):
    """The unicast that answers one app message (as app_message reads it), or None if it lacks what it needs.

    Written as JSON, which CKC reads beside its binary form on every topic: no protobuf library needed here.
    The answer has a TTL of its own, not the request's: None leaves it to the delivery job (5 minutes).
    """
    if not message["node"] or not message["message_id"] or message["payload"] is None:
        return None
    text = message["payload"].decode("utf-8", errors="replace")
    correlation = message["correlation"]
    return {
        "messageId": answer_id(message["message_id"]),
        "sender": SENDER,
        "recipient": message["node"],
        "payload": base64.b64encode(text.upper().encode("utf-8")).decode("ascii"),
        "ttlMs": None,
        "createdAt": int(time.time() * 1000),
        "receipt": False,
        "replyTo": message["reply_to"],
        "correlation": None if correlation is None else base64.b64encode(correlation).decode("ascii"),
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
    answered = skipped = repeats = 0
    recent = RecentIds()
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
                message = app_message(record.value())
                reply = answer(message)
            except (ValueError, UnicodeDecodeError, IndexError, AttributeError):
                reply = None
            if reply is None:
                skipped += 1  # not an app message: counted, never answered
                continue
            if not recent.first_time((message["node"], message["message_id"]), time.monotonic()):
                repeats += 1  # answered already: the node has that answer or will get it
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
    print(f"shout: answered={answered} repeats={repeats} skipped={skipped}", flush=True)


if __name__ == "__main__":
    main()
