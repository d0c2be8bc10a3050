# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BidiRequestId(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class BidiAppendRequest(_message.Message):
    __slots__ = ("data", "request_id", "append_seqno", "data_binary")
    DATA_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    APPEND_SEQNO_FIELD_NUMBER: _ClassVar[int]
    DATA_BINARY_FIELD_NUMBER: _ClassVar[int]
    data: str
    request_id: BidiRequestId
    append_seqno: int
    data_binary: bytes
    def __init__(self, data: _Optional[str] = ..., request_id: _Optional[_Union[BidiRequestId, _Mapping]] = ..., append_seqno: _Optional[int] = ..., data_binary: _Optional[bytes] = ...) -> None: ...

class BidiAppendResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BidiPollRequest(_message.Message):
    __slots__ = ("request_id", "start_request")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    START_REQUEST_FIELD_NUMBER: _ClassVar[int]
    request_id: BidiRequestId
    start_request: bool
    def __init__(self, request_id: _Optional[_Union[BidiRequestId, _Mapping]] = ..., start_request: _Optional[bool] = ...) -> None: ...

class BidiPollResponse(_message.Message):
    __slots__ = ("seqno", "data", "eof")
    SEQNO_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    EOF_FIELD_NUMBER: _ClassVar[int]
    seqno: int
    data: str
    eof: bool
    def __init__(self, seqno: _Optional[int] = ..., data: _Optional[str] = ..., eof: _Optional[bool] = ...) -> None: ...
