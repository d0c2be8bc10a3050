# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf import any_pb2 as _any_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorDetails(_message.Message):
    __slots__ = ("error", "details", "is_expected")
    class Error(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        ERROR_UNSPECIFIED: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_API_KEY: _ClassVar[ErrorDetails.Error]
        ERROR_NOT_LOGGED_IN: _ClassVar[ErrorDetails.Error]
        ERROR_BAD_MODEL_NAME: _ClassVar[ErrorDetails.Error]
        ERROR_FREE_USER_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_PRO_USER_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_MAX_TOKENS: _ClassVar[ErrorDetails.Error]
        ERROR_USER_ABORTED_REQUEST: _ClassVar[ErrorDetails.Error]
        ERROR_GENERIC_RATE_LIMIT_EXCEEDED: _ClassVar[ErrorDetails.Error]
        ERROR_TIMEOUT: _ClassVar[ErrorDetails.Error]
        ERROR_CUSTOM_MESSAGE: _ClassVar[ErrorDetails.Error]
        ERROR_OUTDATED_CLIENT: _ClassVar[ErrorDetails.Error]
        ERROR_RESOURCE_EXHAUSTED: _ClassVar[ErrorDetails.Error]
        ERROR_CONVERSATION_TOO_LONG: _ClassVar[ErrorDetails.Error]
        ERROR_RATE_LIMITED: _ClassVar[ErrorDetails.Error]
        ERROR_CUSTOM: _ClassVar[ErrorDetails.Error]
        ERROR_NETWORK_ERROR: _ClassVar[ErrorDetails.Error]
        ERROR_PROVIDER_ERROR: _ClassVar[ErrorDetails.Error]
        ERROR_INTERNAL: _ClassVar[ErrorDetails.Error]
        ERROR_SLOW_POOL: _ClassVar[ErrorDetails.Error]
    ERROR_UNSPECIFIED: ErrorDetails.Error
    ERROR_BAD_API_KEY: ErrorDetails.Error
    ERROR_NOT_LOGGED_IN: ErrorDetails.Error
    ERROR_BAD_MODEL_NAME: ErrorDetails.Error
    ERROR_FREE_USER_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_PRO_USER_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_MAX_TOKENS: ErrorDetails.Error
    ERROR_USER_ABORTED_REQUEST: ErrorDetails.Error
    ERROR_GENERIC_RATE_LIMIT_EXCEEDED: ErrorDetails.Error
    ERROR_TIMEOUT: ErrorDetails.Error
    ERROR_CUSTOM_MESSAGE: ErrorDetails.Error
    ERROR_OUTDATED_CLIENT: ErrorDetails.Error
    ERROR_RESOURCE_EXHAUSTED: ErrorDetails.Error
    ERROR_CONVERSATION_TOO_LONG: ErrorDetails.Error
    ERROR_RATE_LIMITED: ErrorDetails.Error
    ERROR_CUSTOM: ErrorDetails.Error
    ERROR_NETWORK_ERROR: ErrorDetails.Error
    ERROR_PROVIDER_ERROR: ErrorDetails.Error
    ERROR_INTERNAL: ErrorDetails.Error
    ERROR_SLOW_POOL: ErrorDetails.Error
    ERROR_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    IS_EXPECTED_FIELD_NUMBER: _ClassVar[int]
    error: ErrorDetails.Error
    details: CustomErrorDetails
    is_expected: bool
    def __init__(self, error: _Optional[_Union[ErrorDetails.Error, str]] = ..., details: _Optional[_Union[CustomErrorDetails, _Mapping]] = ..., is_expected: _Optional[bool] = ...) -> None: ...

class CustomErrorDetails(_message.Message):
    __slots__ = ("title", "detail", "allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown", "is_retryable", "show_request_id", "should_show_immediate_error", "additional_info")
    class AdditionalInfoEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TITLE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ALLOW_COMMAND_LINKS_POTENTIALLY_UNSAFE_PLEASE_ONLY_USE_FOR_HANDWRITTEN_TRUSTED_MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    IS_RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    SHOW_REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SHOULD_SHOW_IMMEDIATE_ERROR_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_INFO_FIELD_NUMBER: _ClassVar[int]
    title: str
    detail: str
    allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown: bool
    is_retryable: bool
    show_request_id: bool
    should_show_immediate_error: bool
    additional_info: _containers.ScalarMap[str, str]
    def __init__(self, title: _Optional[str] = ..., detail: _Optional[str] = ..., allow_command_links_potentially_unsafe_please_only_use_for_handwritten_trusted_markdown: _Optional[bool] = ..., is_retryable: _Optional[bool] = ..., show_request_id: _Optional[bool] = ..., should_show_immediate_error: _Optional[bool] = ..., additional_info: _Optional[_Mapping[str, str]] = ...) -> None: ...

class GrpcStatus(_message.Message):
    __slots__ = ("code", "message", "details")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    details: _containers.RepeatedCompositeFieldContainer[_any_pb2.Any]
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., details: _Optional[_Iterable[_Union[_any_pb2.Any, _Mapping]]] = ...) -> None: ...
