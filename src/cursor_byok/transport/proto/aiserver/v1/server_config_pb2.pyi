# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Http2Config(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HTTP2_CONFIG_UNSPECIFIED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_ALL_DISABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_ALL_ENABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_BIDI_DISABLED: _ClassVar[Http2Config]
    HTTP2_CONFIG_FORCE_BIDI_ENABLED: _ClassVar[Http2Config]
HTTP2_CONFIG_UNSPECIFIED: Http2Config
HTTP2_CONFIG_FORCE_ALL_DISABLED: Http2Config
HTTP2_CONFIG_FORCE_ALL_ENABLED: Http2Config
HTTP2_CONFIG_FORCE_BIDI_DISABLED: Http2Config
HTTP2_CONFIG_FORCE_BIDI_ENABLED: Http2Config

class GetServerConfigRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetServerConfigResponse(_message.Message):
    __slots__ = ("http2_config",)
    HTTP2_CONFIG_FIELD_NUMBER: _ClassVar[int]
    http2_config: Http2Config
    def __init__(self, http2_config: _Optional[_Union[Http2Config, str]] = ...) -> None: ...
