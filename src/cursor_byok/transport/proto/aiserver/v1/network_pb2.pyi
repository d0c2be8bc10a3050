# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor

class IsConnectedRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class IsConnectedResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
