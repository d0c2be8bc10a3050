# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AgentMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AGENT_MODE_UNSPECIFIED: _ClassVar[AgentMode]
    AGENT_MODE_AGENT: _ClassVar[AgentMode]
    AGENT_MODE_ASK: _ClassVar[AgentMode]
    AGENT_MODE_PLAN: _ClassVar[AgentMode]
    AGENT_MODE_DEBUG: _ClassVar[AgentMode]
    AGENT_MODE_TRIAGE: _ClassVar[AgentMode]
    AGENT_MODE_PROJECT: _ClassVar[AgentMode]
    AGENT_MODE_MULTITASK: _ClassVar[AgentMode]
    AGENT_MODE_CUSTOM: _ClassVar[AgentMode]

class CursorRuleSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CURSOR_RULE_SOURCE_UNSPECIFIED: _ClassVar[CursorRuleSource]
    CURSOR_RULE_SOURCE_TEAM: _ClassVar[CursorRuleSource]
    CURSOR_RULE_SOURCE_USER: _ClassVar[CursorRuleSource]

class CustomSubagentPermissionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CUSTOM_SUBAGENT_PERMISSION_MODE_UNSPECIFIED: _ClassVar[CustomSubagentPermissionMode]
    CUSTOM_SUBAGENT_PERMISSION_MODE_DEFAULT: _ClassVar[CustomSubagentPermissionMode]
    CUSTOM_SUBAGENT_PERMISSION_MODE_READONLY: _ClassVar[CustomSubagentPermissionMode]
    CUSTOM_SUBAGENT_PERMISSION_MODE_AGENT_ONLY: _ClassVar[CustomSubagentPermissionMode]

class CustomModeSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CUSTOM_MODE_SOURCE_UNSPECIFIED: _ClassVar[CustomModeSource]
    CUSTOM_MODE_SOURCE_AGENT_SKILL: _ClassVar[CustomModeSource]
    CUSTOM_MODE_SOURCE_PLUGIN_SKILL: _ClassVar[CustomModeSource]
    CUSTOM_MODE_SOURCE_REPO_SKILL: _ClassVar[CustomModeSource]
    CUSTOM_MODE_SOURCE_MANAGED_SKILL: _ClassVar[CustomModeSource]

class DiagnosticSeverity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIAGNOSTIC_SEVERITY_UNSPECIFIED: _ClassVar[DiagnosticSeverity]
    DIAGNOSTIC_SEVERITY_ERROR: _ClassVar[DiagnosticSeverity]
    DIAGNOSTIC_SEVERITY_WARNING: _ClassVar[DiagnosticSeverity]
    DIAGNOSTIC_SEVERITY_INFORMATION: _ClassVar[DiagnosticSeverity]
    DIAGNOSTIC_SEVERITY_HINT: _ClassVar[DiagnosticSeverity]

class PackageType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PACKAGE_TYPE_UNSPECIFIED: _ClassVar[PackageType]
    PACKAGE_TYPE_CURSOR_PROJECT: _ClassVar[PackageType]
    PACKAGE_TYPE_CURSOR_PERSONAL: _ClassVar[PackageType]
    PACKAGE_TYPE_CLAUDE_SKILL: _ClassVar[PackageType]
    PACKAGE_TYPE_CLAUDE_PLUGIN: _ClassVar[PackageType]

class ResponseComparisonDisplayOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESPONSE_COMPARISON_DISPLAY_ORDER_UNSPECIFIED: _ClassVar[ResponseComparisonDisplayOrder]
    RESPONSE_COMPARISON_DISPLAY_ORDER_PARENT_FIRST: _ClassVar[ResponseComparisonDisplayOrder]
    RESPONSE_COMPARISON_DISPLAY_ORDER_ALTERNATE_FIRST: _ClassVar[ResponseComparisonDisplayOrder]

class ResponseComparisonSkipReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESPONSE_COMPARISON_SKIP_REASON_UNSPECIFIED: _ClassVar[ResponseComparisonSkipReason]
    RESPONSE_COMPARISON_SKIP_REASON_ALTERNATE_TOOL_CALL: _ClassVar[ResponseComparisonSkipReason]
    RESPONSE_COMPARISON_SKIP_REASON_INFERENCE_ERROR: _ClassVar[ResponseComparisonSkipReason]
    RESPONSE_COMPARISON_SKIP_REASON_TIMEOUT: _ClassVar[ResponseComparisonSkipReason]
    RESPONSE_COMPARISON_SKIP_REASON_CANCELLED: _ClassVar[ResponseComparisonSkipReason]

class SelectedPluginCapabilityType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SELECTED_PLUGIN_CAPABILITY_TYPE_UNSPECIFIED: _ClassVar[SelectedPluginCapabilityType]
    SELECTED_PLUGIN_CAPABILITY_TYPE_COMMAND: _ClassVar[SelectedPluginCapabilityType]
    SELECTED_PLUGIN_CAPABILITY_TYPE_SKILL: _ClassVar[SelectedPluginCapabilityType]
    SELECTED_PLUGIN_CAPABILITY_TYPE_SUBAGENT: _ClassVar[SelectedPluginCapabilityType]

class ShellAbortReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHELL_ABORT_REASON_UNSPECIFIED: _ClassVar[ShellAbortReason]
    SHELL_ABORT_REASON_USER_ABORT: _ClassVar[ShellAbortReason]
    SHELL_ABORT_REASON_TIMEOUT: _ClassVar[ShellAbortReason]

class ShellBackgroundReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SHELL_BACKGROUND_REASON_UNSPECIFIED: _ClassVar[ShellBackgroundReason]
    SHELL_BACKGROUND_REASON_TIMEOUT: _ClassVar[ShellBackgroundReason]
    SHELL_BACKGROUND_REASON_USER_REQUEST: _ClassVar[ShellBackgroundReason]

class SimulatedMsgReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIMULATED_MSG_REASON_UNSPECIFIED: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_PLAN_EXECUTION: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_COMMIT_REMINDER: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_BACKGROUND_TASK_COMPLETION: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_COMMIT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_COMMIT_AND_PUSH: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_PUSH: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_CREATE_PR: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_FIX_MERGE_CONFLICTS: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_USER_SENT_TO_SUBAGENT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_USER_INTERRUPTED_SUBAGENT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_USER_QUEUED_TO_SUBAGENT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_BABYSIT_PR_IN_CLOUD: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_CI_PANEL_INVESTIGATE_FAILURE: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_MULTITASK: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_BUILD_IN_PARALLEL: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_MULTITASK_SPLIT_PRS: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_APPLY_LOCALLY: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_CHECKOUT_BRANCH: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_UPDATE_BRANCH: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_PR_TAB_BUGBOT_FIX: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_RUN_BUGBOT_REVIEW: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_RUN_SECURITY_REVIEW: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_FSD_APPLY_FINDING: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_FSD_UNDO_FINDING: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_FSD_START: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_FSD_PR_INTERRUPT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_SUBSCRIPTION: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_DIFF_TAB_CREATE_BRANCH: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_AGENT_STORE_CONFLICT: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_GOAL_CONTINUATION: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_PROJECT_KICKOFF: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_MARKDOWN_PROMPT_BUTTON: _ClassVar[SimulatedMsgReason]
    SIMULATED_MSG_REASON_USER_QUICK_ACTION: _ClassVar[SimulatedMsgReason]

class SubagentBackgroundReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBAGENT_BACKGROUND_REASON_UNSPECIFIED: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_USER_REQUEST: _ClassVar[SubagentBackgroundReason]
    SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP: _ClassVar[SubagentBackgroundReason]

class SubagentExecutionEnvironment(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBAGENT_EXECUTION_ENVIRONMENT_UNSPECIFIED: _ClassVar[SubagentExecutionEnvironment]
    SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL: _ClassVar[SubagentExecutionEnvironment]
    SUBAGENT_EXECUTION_ENVIRONMENT_CLOUD: _ClassVar[SubagentExecutionEnvironment]

class SubscriptionSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBSCRIPTION_SOURCE_UNSPECIFIED: _ClassVar[SubscriptionSource]
    SUBSCRIPTION_SOURCE_SLACK: _ClassVar[SubscriptionSource]
    SUBSCRIPTION_SOURCE_GITHUB: _ClassVar[SubscriptionSource]
    SUBSCRIPTION_SOURCE_LINEAR: _ClassVar[SubscriptionSource]
    SUBSCRIPTION_SOURCE_ORIGIN: _ClassVar[SubscriptionSource]

class TaskMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TASK_MODE_UNSPECIFIED: _ClassVar[TaskMode]
    TASK_MODE_AGENT: _ClassVar[TaskMode]
    TASK_MODE_PLAN: _ClassVar[TaskMode]

class ThinkingStyle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THINKING_STYLE_UNSPECIFIED: _ClassVar[ThinkingStyle]
    THINKING_STYLE_DEFAULT: _ClassVar[ThinkingStyle]
    THINKING_STYLE_CODEX: _ClassVar[ThinkingStyle]
    THINKING_STYLE_GPT5: _ClassVar[ThinkingStyle]

class TimeoutBehavior(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_BEHAVIOR_UNSPECIFIED: _ClassVar[TimeoutBehavior]
    TIMEOUT_BEHAVIOR_CANCEL: _ClassVar[TimeoutBehavior]
    TIMEOUT_BEHAVIOR_BACKGROUND: _ClassVar[TimeoutBehavior]

class TodoStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TODO_STATUS_UNSPECIFIED: _ClassVar[TodoStatus]
    TODO_STATUS_PENDING: _ClassVar[TodoStatus]
    TODO_STATUS_IN_PROGRESS: _ClassVar[TodoStatus]
    TODO_STATUS_COMPLETED: _ClassVar[TodoStatus]
    TODO_STATUS_CANCELLED: _ClassVar[TodoStatus]
AGENT_MODE_UNSPECIFIED: AgentMode
AGENT_MODE_AGENT: AgentMode
AGENT_MODE_ASK: AgentMode
AGENT_MODE_PLAN: AgentMode
AGENT_MODE_DEBUG: AgentMode
AGENT_MODE_TRIAGE: AgentMode
AGENT_MODE_PROJECT: AgentMode
AGENT_MODE_MULTITASK: AgentMode
AGENT_MODE_CUSTOM: AgentMode
CURSOR_RULE_SOURCE_UNSPECIFIED: CursorRuleSource
CURSOR_RULE_SOURCE_TEAM: CursorRuleSource
CURSOR_RULE_SOURCE_USER: CursorRuleSource
CUSTOM_SUBAGENT_PERMISSION_MODE_UNSPECIFIED: CustomSubagentPermissionMode
CUSTOM_SUBAGENT_PERMISSION_MODE_DEFAULT: CustomSubagentPermissionMode
CUSTOM_SUBAGENT_PERMISSION_MODE_READONLY: CustomSubagentPermissionMode
CUSTOM_SUBAGENT_PERMISSION_MODE_AGENT_ONLY: CustomSubagentPermissionMode
CUSTOM_MODE_SOURCE_UNSPECIFIED: CustomModeSource
CUSTOM_MODE_SOURCE_AGENT_SKILL: CustomModeSource
CUSTOM_MODE_SOURCE_PLUGIN_SKILL: CustomModeSource
CUSTOM_MODE_SOURCE_REPO_SKILL: CustomModeSource
CUSTOM_MODE_SOURCE_MANAGED_SKILL: CustomModeSource
DIAGNOSTIC_SEVERITY_UNSPECIFIED: DiagnosticSeverity
DIAGNOSTIC_SEVERITY_ERROR: DiagnosticSeverity
DIAGNOSTIC_SEVERITY_WARNING: DiagnosticSeverity
DIAGNOSTIC_SEVERITY_INFORMATION: DiagnosticSeverity
DIAGNOSTIC_SEVERITY_HINT: DiagnosticSeverity
PACKAGE_TYPE_UNSPECIFIED: PackageType
PACKAGE_TYPE_CURSOR_PROJECT: PackageType
PACKAGE_TYPE_CURSOR_PERSONAL: PackageType
PACKAGE_TYPE_CLAUDE_SKILL: PackageType
PACKAGE_TYPE_CLAUDE_PLUGIN: PackageType
RESPONSE_COMPARISON_DISPLAY_ORDER_UNSPECIFIED: ResponseComparisonDisplayOrder
RESPONSE_COMPARISON_DISPLAY_ORDER_PARENT_FIRST: ResponseComparisonDisplayOrder
RESPONSE_COMPARISON_DISPLAY_ORDER_ALTERNATE_FIRST: ResponseComparisonDisplayOrder
RESPONSE_COMPARISON_SKIP_REASON_UNSPECIFIED: ResponseComparisonSkipReason
RESPONSE_COMPARISON_SKIP_REASON_ALTERNATE_TOOL_CALL: ResponseComparisonSkipReason
RESPONSE_COMPARISON_SKIP_REASON_INFERENCE_ERROR: ResponseComparisonSkipReason
RESPONSE_COMPARISON_SKIP_REASON_TIMEOUT: ResponseComparisonSkipReason
RESPONSE_COMPARISON_SKIP_REASON_CANCELLED: ResponseComparisonSkipReason
SELECTED_PLUGIN_CAPABILITY_TYPE_UNSPECIFIED: SelectedPluginCapabilityType
SELECTED_PLUGIN_CAPABILITY_TYPE_COMMAND: SelectedPluginCapabilityType
SELECTED_PLUGIN_CAPABILITY_TYPE_SKILL: SelectedPluginCapabilityType
SELECTED_PLUGIN_CAPABILITY_TYPE_SUBAGENT: SelectedPluginCapabilityType
SHELL_ABORT_REASON_UNSPECIFIED: ShellAbortReason
SHELL_ABORT_REASON_USER_ABORT: ShellAbortReason
SHELL_ABORT_REASON_TIMEOUT: ShellAbortReason
SHELL_BACKGROUND_REASON_UNSPECIFIED: ShellBackgroundReason
SHELL_BACKGROUND_REASON_TIMEOUT: ShellBackgroundReason
SHELL_BACKGROUND_REASON_USER_REQUEST: ShellBackgroundReason
SIMULATED_MSG_REASON_UNSPECIFIED: SimulatedMsgReason
SIMULATED_MSG_REASON_PLAN_EXECUTION: SimulatedMsgReason
SIMULATED_MSG_REASON_COMMIT_REMINDER: SimulatedMsgReason
SIMULATED_MSG_REASON_BACKGROUND_TASK_COMPLETION: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_COMMIT: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_COMMIT_AND_PUSH: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_PUSH: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_CREATE_PR: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_FIX_MERGE_CONFLICTS: SimulatedMsgReason
SIMULATED_MSG_REASON_USER_SENT_TO_SUBAGENT: SimulatedMsgReason
SIMULATED_MSG_REASON_USER_INTERRUPTED_SUBAGENT: SimulatedMsgReason
SIMULATED_MSG_REASON_USER_QUEUED_TO_SUBAGENT: SimulatedMsgReason
SIMULATED_MSG_REASON_BABYSIT_PR_IN_CLOUD: SimulatedMsgReason
SIMULATED_MSG_REASON_CI_PANEL_INVESTIGATE_FAILURE: SimulatedMsgReason
SIMULATED_MSG_REASON_MULTITASK: SimulatedMsgReason
SIMULATED_MSG_REASON_BUILD_IN_PARALLEL: SimulatedMsgReason
SIMULATED_MSG_REASON_MULTITASK_SPLIT_PRS: SimulatedMsgReason
SIMULATED_MSG_REASON_APPLY_LOCALLY: SimulatedMsgReason
SIMULATED_MSG_REASON_CHECKOUT_BRANCH: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_UPDATE_BRANCH: SimulatedMsgReason
SIMULATED_MSG_REASON_PR_TAB_BUGBOT_FIX: SimulatedMsgReason
SIMULATED_MSG_REASON_RUN_BUGBOT_REVIEW: SimulatedMsgReason
SIMULATED_MSG_REASON_RUN_SECURITY_REVIEW: SimulatedMsgReason
SIMULATED_MSG_REASON_FSD_APPLY_FINDING: SimulatedMsgReason
SIMULATED_MSG_REASON_FSD_UNDO_FINDING: SimulatedMsgReason
SIMULATED_MSG_REASON_FSD_START: SimulatedMsgReason
SIMULATED_MSG_REASON_FSD_PR_INTERRUPT: SimulatedMsgReason
SIMULATED_MSG_REASON_SUBSCRIPTION: SimulatedMsgReason
SIMULATED_MSG_REASON_DIFF_TAB_CREATE_BRANCH: SimulatedMsgReason
SIMULATED_MSG_REASON_AGENT_STORE_CONFLICT: SimulatedMsgReason
SIMULATED_MSG_REASON_GOAL_CONTINUATION: SimulatedMsgReason
SIMULATED_MSG_REASON_PROJECT_KICKOFF: SimulatedMsgReason
SIMULATED_MSG_REASON_MARKDOWN_PROMPT_BUTTON: SimulatedMsgReason
SIMULATED_MSG_REASON_USER_QUICK_ACTION: SimulatedMsgReason
SUBAGENT_BACKGROUND_REASON_UNSPECIFIED: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_AGENT_REQUEST: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_USER_REQUEST: SubagentBackgroundReason
SUBAGENT_BACKGROUND_REASON_QUEUED_FOLLOW_UP: SubagentBackgroundReason
SUBAGENT_EXECUTION_ENVIRONMENT_UNSPECIFIED: SubagentExecutionEnvironment
SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL: SubagentExecutionEnvironment
SUBAGENT_EXECUTION_ENVIRONMENT_CLOUD: SubagentExecutionEnvironment
SUBSCRIPTION_SOURCE_UNSPECIFIED: SubscriptionSource
SUBSCRIPTION_SOURCE_SLACK: SubscriptionSource
SUBSCRIPTION_SOURCE_GITHUB: SubscriptionSource
SUBSCRIPTION_SOURCE_LINEAR: SubscriptionSource
SUBSCRIPTION_SOURCE_ORIGIN: SubscriptionSource
TASK_MODE_UNSPECIFIED: TaskMode
TASK_MODE_AGENT: TaskMode
TASK_MODE_PLAN: TaskMode
THINKING_STYLE_UNSPECIFIED: ThinkingStyle
THINKING_STYLE_DEFAULT: ThinkingStyle
THINKING_STYLE_CODEX: ThinkingStyle
THINKING_STYLE_GPT5: ThinkingStyle
TIMEOUT_BEHAVIOR_UNSPECIFIED: TimeoutBehavior
TIMEOUT_BEHAVIOR_CANCEL: TimeoutBehavior
TIMEOUT_BEHAVIOR_BACKGROUND: TimeoutBehavior
TODO_STATUS_UNSPECIFIED: TodoStatus
TODO_STATUS_PENDING: TodoStatus
TODO_STATUS_IN_PROGRESS: TodoStatus
TODO_STATUS_COMPLETED: TodoStatus
TODO_STATUS_CANCELLED: TodoStatus

class AgentClientMessage(_message.Message):
    __slots__ = ("run_request", "exec_client_message", "kv_client_message", "conversation_action", "exec_client_control_message", "interaction_response", "client_heartbeat", "prewarm_request")
    RUN_REQUEST_FIELD_NUMBER: _ClassVar[int]
    EXEC_CLIENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    KV_CLIENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ACTION_FIELD_NUMBER: _ClassVar[int]
    EXEC_CLIENT_CONTROL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    PREWARM_REQUEST_FIELD_NUMBER: _ClassVar[int]
    run_request: AgentRunRequest
    exec_client_message: ExecClientMessage
    kv_client_message: KvClientMessage
    conversation_action: ConversationAction
    exec_client_control_message: ExecClientControlMessage
    interaction_response: InteractionResponse
    client_heartbeat: ClientHeartbeat
    prewarm_request: PrewarmRequest
    def __init__(self, run_request: _Optional[_Union[AgentRunRequest, _Mapping]] = ..., exec_client_message: _Optional[_Union[ExecClientMessage, _Mapping]] = ..., kv_client_message: _Optional[_Union[KvClientMessage, _Mapping]] = ..., conversation_action: _Optional[_Union[ConversationAction, _Mapping]] = ..., exec_client_control_message: _Optional[_Union[ExecClientControlMessage, _Mapping]] = ..., interaction_response: _Optional[_Union[InteractionResponse, _Mapping]] = ..., client_heartbeat: _Optional[_Union[ClientHeartbeat, _Mapping]] = ..., prewarm_request: _Optional[_Union[PrewarmRequest, _Mapping]] = ...) -> None: ...

class AgentServerMessage(_message.Message):
    __slots__ = ("interaction_update", "exec_server_message", "conversation_checkpoint_update", "kv_server_message", "exec_server_control_message", "interaction_query", "ttft_breakdown")
    INTERACTION_UPDATE_FIELD_NUMBER: _ClassVar[int]
    EXEC_SERVER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_CHECKPOINT_UPDATE_FIELD_NUMBER: _ClassVar[int]
    KV_SERVER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    EXEC_SERVER_CONTROL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_QUERY_FIELD_NUMBER: _ClassVar[int]
    TTFT_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    interaction_update: InteractionUpdate
    exec_server_message: ExecServerMessage
    conversation_checkpoint_update: ConversationStateStructure
    kv_server_message: KvServerMessage
    exec_server_control_message: ExecServerControlMessage
    interaction_query: InteractionQuery
    ttft_breakdown: TtftBreakdown
    def __init__(self, interaction_update: _Optional[_Union[InteractionUpdate, _Mapping]] = ..., exec_server_message: _Optional[_Union[ExecServerMessage, _Mapping]] = ..., conversation_checkpoint_update: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., kv_server_message: _Optional[_Union[KvServerMessage, _Mapping]] = ..., exec_server_control_message: _Optional[_Union[ExecServerControlMessage, _Mapping]] = ..., interaction_query: _Optional[_Union[InteractionQuery, _Mapping]] = ..., ttft_breakdown: _Optional[_Union[TtftBreakdown, _Mapping]] = ...) -> None: ...

class ClientHeartbeat(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TtftBreakdown(_message.Message):
    __slots__ = ("server_first_token_ms", "pre_stream_setup_ms", "wait_for_first_event_ms", "provider_ttft_ms", "slow_pool_wait_ms")
    SERVER_FIRST_TOKEN_MS_FIELD_NUMBER: _ClassVar[int]
    PRE_STREAM_SETUP_MS_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_FIRST_EVENT_MS_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_TTFT_MS_FIELD_NUMBER: _ClassVar[int]
    SLOW_POOL_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    server_first_token_ms: float
    pre_stream_setup_ms: float
    wait_for_first_event_ms: float
    provider_ttft_ms: float
    slow_pool_wait_ms: float
    def __init__(self, server_first_token_ms: _Optional[float] = ..., pre_stream_setup_ms: _Optional[float] = ..., wait_for_first_event_ms: _Optional[float] = ..., provider_ttft_ms: _Optional[float] = ..., slow_pool_wait_ms: _Optional[float] = ...) -> None: ...

class AgentRunRequest(_message.Message):
    __slots__ = ("conversation_state", "action", "model_details", "mcp_tools", "conversation_id", "mcp_file_system_options", "skill_options", "custom_system_prompt", "requested_model", "suggest_next_prompt", "subagent_type_name", "exclude_workspace_context", "harness", "selected_subagent_models", "selected_subagent_model_details", "conversation_group_id", "pre_fetched_blobs", "dev_raw_model_slug", "client_supports_inline_images", "subagent_model_overrides", "can_create_cloud_subagents", "suppress_subagent_progress_update_tool", "client_supports_send_to_user", "computer_use_coordinate_mode", "run_id", "agent_session_id", "client_supports_prompt_context_usage_rpc", "client_supports_routed_model_update", "client_supports_preview_card", "started_as_new_project", "first_project_onboarding")
    CONVERSATION_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SKILL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    SUGGEST_NEXT_PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_WORKSPACE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    HARNESS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODELS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    PRE_FETCHED_BLOBS_FIELD_NUMBER: _ClassVar[int]
    DEV_RAW_MODEL_SLUG_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_INLINE_IMAGES_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_MODEL_OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CAN_CREATE_CLOUD_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    SUPPRESS_SUBAGENT_PROGRESS_UPDATE_TOOL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_SEND_TO_USER_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_COORDINATE_MODE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_PROMPT_CONTEXT_USAGE_RPC_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_ROUTED_MODEL_UPDATE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_PREVIEW_CARD_FIELD_NUMBER: _ClassVar[int]
    STARTED_AS_NEW_PROJECT_FIELD_NUMBER: _ClassVar[int]
    FIRST_PROJECT_ONBOARDING_FIELD_NUMBER: _ClassVar[int]
    conversation_state: ConversationStateStructure
    action: ConversationAction
    model_details: ModelDetails
    mcp_tools: McpTools
    conversation_id: str
    mcp_file_system_options: McpFileSystemOptions
    skill_options: SkillOptions
    custom_system_prompt: str
    requested_model: RequestedModel
    suggest_next_prompt: bool
    subagent_type_name: str
    exclude_workspace_context: bool
    harness: str
    selected_subagent_models: _containers.RepeatedCompositeFieldContainer[RequestedModel]
    selected_subagent_model_details: _containers.RepeatedCompositeFieldContainer[ModelDetails]
    conversation_group_id: str
    pre_fetched_blobs: _containers.RepeatedCompositeFieldContainer[PreFetchedBlob]
    dev_raw_model_slug: str
    client_supports_inline_images: bool
    subagent_model_overrides: _containers.RepeatedCompositeFieldContainer[SubagentModelOverride]
    can_create_cloud_subagents: bool
    suppress_subagent_progress_update_tool: bool
    client_supports_send_to_user: bool
    computer_use_coordinate_mode: str
    run_id: str
    agent_session_id: str
    client_supports_prompt_context_usage_rpc: bool
    client_supports_routed_model_update: bool
    client_supports_preview_card: bool
    started_as_new_project: bool
    first_project_onboarding: bool
    def __init__(self, conversation_state: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., action: _Optional[_Union[ConversationAction, _Mapping]] = ..., model_details: _Optional[_Union[ModelDetails, _Mapping]] = ..., mcp_tools: _Optional[_Union[McpTools, _Mapping]] = ..., conversation_id: _Optional[str] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ..., skill_options: _Optional[_Union[SkillOptions, _Mapping]] = ..., custom_system_prompt: _Optional[str] = ..., requested_model: _Optional[_Union[RequestedModel, _Mapping]] = ..., suggest_next_prompt: _Optional[bool] = ..., subagent_type_name: _Optional[str] = ..., exclude_workspace_context: _Optional[bool] = ..., harness: _Optional[str] = ..., selected_subagent_models: _Optional[_Iterable[_Union[RequestedModel, _Mapping]]] = ..., selected_subagent_model_details: _Optional[_Iterable[_Union[ModelDetails, _Mapping]]] = ..., conversation_group_id: _Optional[str] = ..., pre_fetched_blobs: _Optional[_Iterable[_Union[PreFetchedBlob, _Mapping]]] = ..., dev_raw_model_slug: _Optional[str] = ..., client_supports_inline_images: _Optional[bool] = ..., subagent_model_overrides: _Optional[_Iterable[_Union[SubagentModelOverride, _Mapping]]] = ..., can_create_cloud_subagents: _Optional[bool] = ..., suppress_subagent_progress_update_tool: _Optional[bool] = ..., client_supports_send_to_user: _Optional[bool] = ..., computer_use_coordinate_mode: _Optional[str] = ..., run_id: _Optional[str] = ..., agent_session_id: _Optional[str] = ..., client_supports_prompt_context_usage_rpc: _Optional[bool] = ..., client_supports_routed_model_update: _Optional[bool] = ..., client_supports_preview_card: _Optional[bool] = ..., started_as_new_project: _Optional[bool] = ..., first_project_onboarding: _Optional[bool] = ...) -> None: ...

class PrewarmRequest(_message.Message):
    __slots__ = ("model_details", "conversation_id", "conversation_state", "mcp_tools", "mcp_file_system_options", "best_of_n_group_id", "try_use_best_of_n_promotion", "custom_system_prompt", "requested_model", "suggest_next_prompt", "subagent_type_name", "exclude_workspace_context", "harness", "selected_subagent_models", "selected_subagent_model_details", "conversation_group_id", "pre_fetched_blobs", "client_supports_inline_images", "can_create_cloud_subagents", "suppress_subagent_progress_update_tool", "client_supports_send_to_user", "computer_use_coordinate_mode", "agent_session_id", "client_supports_prompt_context_usage_rpc", "client_supports_routed_model_update", "client_supports_preview_card", "started_as_new_project", "first_project_onboarding")
    MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_STATE_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    BEST_OF_N_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    TRY_USE_BEST_OF_N_PROMOTION_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    SUGGEST_NEXT_PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_WORKSPACE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    HARNESS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODELS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SUBAGENT_MODEL_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    PRE_FETCHED_BLOBS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_INLINE_IMAGES_FIELD_NUMBER: _ClassVar[int]
    CAN_CREATE_CLOUD_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    SUPPRESS_SUBAGENT_PROGRESS_UPDATE_TOOL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_SEND_TO_USER_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_COORDINATE_MODE_FIELD_NUMBER: _ClassVar[int]
    AGENT_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_PROMPT_CONTEXT_USAGE_RPC_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_ROUTED_MODEL_UPDATE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SUPPORTS_PREVIEW_CARD_FIELD_NUMBER: _ClassVar[int]
    STARTED_AS_NEW_PROJECT_FIELD_NUMBER: _ClassVar[int]
    FIRST_PROJECT_ONBOARDING_FIELD_NUMBER: _ClassVar[int]
    model_details: ModelDetails
    conversation_id: str
    conversation_state: ConversationStateStructure
    mcp_tools: McpTools
    mcp_file_system_options: McpFileSystemOptions
    best_of_n_group_id: str
    try_use_best_of_n_promotion: bool
    custom_system_prompt: str
    requested_model: RequestedModel
    suggest_next_prompt: bool
    subagent_type_name: str
    exclude_workspace_context: bool
    harness: str
    selected_subagent_models: _containers.RepeatedCompositeFieldContainer[RequestedModel]
    selected_subagent_model_details: _containers.RepeatedCompositeFieldContainer[ModelDetails]
    conversation_group_id: str
    pre_fetched_blobs: _containers.RepeatedCompositeFieldContainer[PreFetchedBlob]
    client_supports_inline_images: bool
    can_create_cloud_subagents: bool
    suppress_subagent_progress_update_tool: bool
    client_supports_send_to_user: bool
    computer_use_coordinate_mode: str
    agent_session_id: str
    client_supports_prompt_context_usage_rpc: bool
    client_supports_routed_model_update: bool
    client_supports_preview_card: bool
    started_as_new_project: bool
    first_project_onboarding: bool
    def __init__(self, model_details: _Optional[_Union[ModelDetails, _Mapping]] = ..., conversation_id: _Optional[str] = ..., conversation_state: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., mcp_tools: _Optional[_Union[McpTools, _Mapping]] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ..., best_of_n_group_id: _Optional[str] = ..., try_use_best_of_n_promotion: _Optional[bool] = ..., custom_system_prompt: _Optional[str] = ..., requested_model: _Optional[_Union[RequestedModel, _Mapping]] = ..., suggest_next_prompt: _Optional[bool] = ..., subagent_type_name: _Optional[str] = ..., exclude_workspace_context: _Optional[bool] = ..., harness: _Optional[str] = ..., selected_subagent_models: _Optional[_Iterable[_Union[RequestedModel, _Mapping]]] = ..., selected_subagent_model_details: _Optional[_Iterable[_Union[ModelDetails, _Mapping]]] = ..., conversation_group_id: _Optional[str] = ..., pre_fetched_blobs: _Optional[_Iterable[_Union[PreFetchedBlob, _Mapping]]] = ..., client_supports_inline_images: _Optional[bool] = ..., can_create_cloud_subagents: _Optional[bool] = ..., suppress_subagent_progress_update_tool: _Optional[bool] = ..., client_supports_send_to_user: _Optional[bool] = ..., computer_use_coordinate_mode: _Optional[str] = ..., agent_session_id: _Optional[str] = ..., client_supports_prompt_context_usage_rpc: _Optional[bool] = ..., client_supports_routed_model_update: _Optional[bool] = ..., client_supports_preview_card: _Optional[bool] = ..., started_as_new_project: _Optional[bool] = ..., first_project_onboarding: _Optional[bool] = ...) -> None: ...

class ConversationAction(_message.Message):
    __slots__ = ("user_message_action", "resume_action", "cancel_action", "summarize_action", "shell_command_action", "start_plan_action", "execute_plan_action", "async_ask_question_completion_action", "cancel_subagent_action", "triggering_auth_id", "triggering_user_info", "request_context_parts")
    USER_MESSAGE_ACTION_FIELD_NUMBER: _ClassVar[int]
    RESUME_ACTION_FIELD_NUMBER: _ClassVar[int]
    CANCEL_ACTION_FIELD_NUMBER: _ClassVar[int]
    SUMMARIZE_ACTION_FIELD_NUMBER: _ClassVar[int]
    SHELL_COMMAND_ACTION_FIELD_NUMBER: _ClassVar[int]
    START_PLAN_ACTION_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_PLAN_ACTION_FIELD_NUMBER: _ClassVar[int]
    ASYNC_ASK_QUESTION_COMPLETION_ACTION_FIELD_NUMBER: _ClassVar[int]
    CANCEL_SUBAGENT_ACTION_FIELD_NUMBER: _ClassVar[int]
    TRIGGERING_AUTH_ID_FIELD_NUMBER: _ClassVar[int]
    TRIGGERING_USER_INFO_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_PARTS_FIELD_NUMBER: _ClassVar[int]
    user_message_action: UserMessageAction
    resume_action: ResumeAction
    cancel_action: CancelAction
    summarize_action: SummarizeAction
    shell_command_action: ShellCommandAction
    start_plan_action: StartPlanAction
    execute_plan_action: ExecutePlanAction
    async_ask_question_completion_action: AsyncAskQuestionCompletionAction
    cancel_subagent_action: CancelSubagentAction
    triggering_auth_id: str
    triggering_user_info: TriggeringUserInfo
    request_context_parts: RequestContextPartReferences
    def __init__(self, user_message_action: _Optional[_Union[UserMessageAction, _Mapping]] = ..., resume_action: _Optional[_Union[ResumeAction, _Mapping]] = ..., cancel_action: _Optional[_Union[CancelAction, _Mapping]] = ..., summarize_action: _Optional[_Union[SummarizeAction, _Mapping]] = ..., shell_command_action: _Optional[_Union[ShellCommandAction, _Mapping]] = ..., start_plan_action: _Optional[_Union[StartPlanAction, _Mapping]] = ..., execute_plan_action: _Optional[_Union[ExecutePlanAction, _Mapping]] = ..., async_ask_question_completion_action: _Optional[_Union[AsyncAskQuestionCompletionAction, _Mapping]] = ..., cancel_subagent_action: _Optional[_Union[CancelSubagentAction, _Mapping]] = ..., triggering_auth_id: _Optional[str] = ..., triggering_user_info: _Optional[_Union[TriggeringUserInfo, _Mapping]] = ..., request_context_parts: _Optional[_Union[RequestContextPartReferences, _Mapping]] = ...) -> None: ...

class UserMessageAction(_message.Message):
    __slots__ = ("user_message", "request_context", "send_to_interaction_listener", "prepend_user_messages", "interrupted_pending_tool_call_resolutions", "conversation_history")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SEND_TO_INTERACTION_LISTENER_FIELD_NUMBER: _ClassVar[int]
    PREPEND_USER_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTED_PENDING_TOOL_CALL_RESOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    request_context: RequestContext
    send_to_interaction_listener: bool
    prepend_user_messages: _containers.RepeatedCompositeFieldContainer[UserMessage]
    interrupted_pending_tool_call_resolutions: InterruptedPendingToolCallResolutions
    conversation_history: ConversationHistory
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ..., request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., send_to_interaction_listener: _Optional[bool] = ..., prepend_user_messages: _Optional[_Iterable[_Union[UserMessage, _Mapping]]] = ..., interrupted_pending_tool_call_resolutions: _Optional[_Union[InterruptedPendingToolCallResolutions, _Mapping]] = ..., conversation_history: _Optional[_Union[ConversationHistory, _Mapping]] = ...) -> None: ...

class UserMessage(_message.Message):
    __slots__ = ("text", "message_id", "selected_context", "mode", "is_simulated_msg", "best_of_n_group_id", "try_use_best_of_n_promotion", "rich_text", "simulated_msg_reason", "conversation_state_blob_id", "subagent_system_reminder", "triggering_user_info", "execute_plan_info", "simulated_message_metadata", "prompt_reference_id", "thread_id", "text_blob_id", "rich_text_blob_id", "hook_additional_contexts", "custom_mode_intent", "turn_steer", "started_at_ms", "completed_at_ms", "sent_by_agent_id")
    class SimulatedMessageMetadata(_message.Message):
        __slots__ = ("title", "task_id", "fsd_finding_action", "url", "subscription_source")
        TITLE_FIELD_NUMBER: _ClassVar[int]
        TASK_ID_FIELD_NUMBER: _ClassVar[int]
        FSD_FINDING_ACTION_FIELD_NUMBER: _ClassVar[int]
        URL_FIELD_NUMBER: _ClassVar[int]
        SUBSCRIPTION_SOURCE_FIELD_NUMBER: _ClassVar[int]
        title: str
        task_id: str
        fsd_finding_action: str
        url: str
        subscription_source: SubscriptionSource
        def __init__(self, title: _Optional[str] = ..., task_id: _Optional[str] = ..., fsd_finding_action: _Optional[str] = ..., url: _Optional[str] = ..., subscription_source: _Optional[_Union[SubscriptionSource, str]] = ...) -> None: ...
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SELECTED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    IS_SIMULATED_MSG_FIELD_NUMBER: _ClassVar[int]
    BEST_OF_N_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    TRY_USE_BEST_OF_N_PROMOTION_FIELD_NUMBER: _ClassVar[int]
    RICH_TEXT_FIELD_NUMBER: _ClassVar[int]
    SIMULATED_MSG_REASON_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_STATE_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_SYSTEM_REMINDER_FIELD_NUMBER: _ClassVar[int]
    TRIGGERING_USER_INFO_FIELD_NUMBER: _ClassVar[int]
    EXECUTE_PLAN_INFO_FIELD_NUMBER: _ClassVar[int]
    SIMULATED_MESSAGE_METADATA_FIELD_NUMBER: _ClassVar[int]
    PROMPT_REFERENCE_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    RICH_TEXT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_MODE_INTENT_FIELD_NUMBER: _ClassVar[int]
    TURN_STEER_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    SENT_BY_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    text: str
    message_id: str
    selected_context: SelectedContext
    mode: AgentMode
    is_simulated_msg: bool
    best_of_n_group_id: str
    try_use_best_of_n_promotion: bool
    rich_text: str
    simulated_msg_reason: SimulatedMsgReason
    conversation_state_blob_id: bytes
    subagent_system_reminder: str
    triggering_user_info: TriggeringUserInfo
    execute_plan_info: ExecutePlanInfo
    simulated_message_metadata: UserMessage.SimulatedMessageMetadata
    prompt_reference_id: str
    thread_id: str
    text_blob_id: bytes
    rich_text_blob_id: bytes
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    custom_mode_intent: CustomModeIntent
    turn_steer: bool
    started_at_ms: int
    completed_at_ms: int
    sent_by_agent_id: str
    def __init__(self, text: _Optional[str] = ..., message_id: _Optional[str] = ..., selected_context: _Optional[_Union[SelectedContext, _Mapping]] = ..., mode: _Optional[_Union[AgentMode, str]] = ..., is_simulated_msg: _Optional[bool] = ..., best_of_n_group_id: _Optional[str] = ..., try_use_best_of_n_promotion: _Optional[bool] = ..., rich_text: _Optional[str] = ..., simulated_msg_reason: _Optional[_Union[SimulatedMsgReason, str]] = ..., conversation_state_blob_id: _Optional[bytes] = ..., subagent_system_reminder: _Optional[str] = ..., triggering_user_info: _Optional[_Union[TriggeringUserInfo, _Mapping]] = ..., execute_plan_info: _Optional[_Union[ExecutePlanInfo, _Mapping]] = ..., simulated_message_metadata: _Optional[_Union[UserMessage.SimulatedMessageMetadata, _Mapping]] = ..., prompt_reference_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., text_blob_id: _Optional[bytes] = ..., rich_text_blob_id: _Optional[bytes] = ..., hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ..., custom_mode_intent: _Optional[_Union[CustomModeIntent, _Mapping]] = ..., turn_steer: _Optional[bool] = ..., started_at_ms: _Optional[int] = ..., completed_at_ms: _Optional[int] = ..., sent_by_agent_id: _Optional[str] = ...) -> None: ...

class ModelDetails(_message.Message):
    __slots__ = ("model_id", "thinking_details", "display_model_id", "display_name", "display_name_short", "aliases", "max_mode", "api_key_credentials", "azure_credentials", "bedrock_credentials")
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    THINKING_DETAILS_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_SHORT_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    API_KEY_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    AZURE_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BEDROCK_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    thinking_details: ThinkingDetails
    display_model_id: str
    display_name: str
    display_name_short: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    max_mode: bool
    api_key_credentials: ApiKeyCredentials
    azure_credentials: AzureCredentials
    bedrock_credentials: BedrockCredentials
    def __init__(self, model_id: _Optional[str] = ..., thinking_details: _Optional[_Union[ThinkingDetails, _Mapping]] = ..., display_model_id: _Optional[str] = ..., display_name: _Optional[str] = ..., display_name_short: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., max_mode: _Optional[bool] = ..., api_key_credentials: _Optional[_Union[ApiKeyCredentials, _Mapping]] = ..., azure_credentials: _Optional[_Union[AzureCredentials, _Mapping]] = ..., bedrock_credentials: _Optional[_Union[BedrockCredentials, _Mapping]] = ...) -> None: ...

class RequestedModel(_message.Message):
    __slots__ = ("model_id", "max_mode", "parameters", "api_key_credentials", "azure_credentials", "bedrock_credentials", "built_in_model", "is_variant_string_representation")
    class ModelParameterValue(_message.Message):
        __slots__ = ("id", "value")
        ID_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        id: str
        value: str
        def __init__(self, id: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_MODE_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    API_KEY_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    AZURE_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BEDROCK_CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BUILT_IN_MODEL_FIELD_NUMBER: _ClassVar[int]
    IS_VARIANT_STRING_REPRESENTATION_FIELD_NUMBER: _ClassVar[int]
    model_id: str
    max_mode: bool
    parameters: _containers.RepeatedCompositeFieldContainer[RequestedModel.ModelParameterValue]
    api_key_credentials: ApiKeyCredentials
    azure_credentials: AzureCredentials
    bedrock_credentials: BedrockCredentials
    built_in_model: bool
    is_variant_string_representation: bool
    def __init__(self, model_id: _Optional[str] = ..., max_mode: _Optional[bool] = ..., parameters: _Optional[_Iterable[_Union[RequestedModel.ModelParameterValue, _Mapping]]] = ..., api_key_credentials: _Optional[_Union[ApiKeyCredentials, _Mapping]] = ..., azure_credentials: _Optional[_Union[AzureCredentials, _Mapping]] = ..., bedrock_credentials: _Optional[_Union[BedrockCredentials, _Mapping]] = ..., built_in_model: _Optional[bool] = ..., is_variant_string_representation: _Optional[bool] = ...) -> None: ...

class McpTools(_message.Message):
    __slots__ = ("mcp_tools",)
    MCP_TOOLS_FIELD_NUMBER: _ClassVar[int]
    mcp_tools: _containers.RepeatedCompositeFieldContainer[McpToolDefinition]
    def __init__(self, mcp_tools: _Optional[_Iterable[_Union[McpToolDefinition, _Mapping]]] = ...) -> None: ...

class McpToolDefinition(_message.Message):
    __slots__ = ("name", "description", "input_schema", "provider_identifier", "tool_name", "input_schema_json")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    input_schema: _struct_pb2.Value
    provider_identifier: str
    tool_name: str
    input_schema_json: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., provider_identifier: _Optional[str] = ..., tool_name: _Optional[str] = ..., input_schema_json: _Optional[str] = ...) -> None: ...

class InteractionUpdate(_message.Message):
    __slots__ = ("text_delta", "tool_call_started", "tool_call_completed", "thinking_delta", "thinking_completed", "user_message_appended", "partial_tool_call", "token_delta", "summary", "summary_started", "summary_completed", "shell_output_delta", "heartbeat", "turn_ended", "tool_call_delta", "step_started", "step_completed", "prompt_suggestion", "post_request_prompt", "active_branch_change", "feedback_request", "response_comparison", "context_injection_state", "routed_model", "grok_bot_nudge", "message_started_at_ms")
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_STARTED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    THINKING_DELTA_FIELD_NUMBER: _ClassVar[int]
    THINKING_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_APPENDED_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOKEN_DELTA_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_STARTED_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    SHELL_OUTPUT_DELTA_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_ENDED_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    STEP_STARTED_FIELD_NUMBER: _ClassVar[int]
    STEP_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    PROMPT_SUGGESTION_FIELD_NUMBER: _ClassVar[int]
    POST_REQUEST_PROMPT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_BRANCH_CHANGE_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_REQUEST_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_COMPARISON_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_INJECTION_STATE_FIELD_NUMBER: _ClassVar[int]
    ROUTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    GROK_BOT_NUDGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    text_delta: TextDeltaUpdate
    tool_call_started: ToolCallStartedUpdate
    tool_call_completed: ToolCallCompletedUpdate
    thinking_delta: ThinkingDeltaUpdate
    thinking_completed: ThinkingCompletedUpdate
    user_message_appended: UserMessageAppendedUpdate
    partial_tool_call: PartialToolCallUpdate
    token_delta: TokenDeltaUpdate
    summary: SummaryUpdate
    summary_started: SummaryStartedUpdate
    summary_completed: SummaryCompletedUpdate
    shell_output_delta: ShellOutputDeltaUpdate
    heartbeat: HeartbeatUpdate
    turn_ended: TurnEndedUpdate
    tool_call_delta: ToolCallDeltaUpdate
    step_started: StepStartedUpdate
    step_completed: StepCompletedUpdate
    prompt_suggestion: PromptSuggestionUpdate
    post_request_prompt: PostRequestPromptUpdate
    active_branch_change: ActiveBranchChange
    feedback_request: FeedbackRequestUpdate
    response_comparison: ResponseComparisonUpdate
    context_injection_state: ContextInjectionStateUpdate
    routed_model: RoutedModelUpdate
    grok_bot_nudge: GrokBotNudgeUpdate
    message_started_at_ms: int
    def __init__(self, text_delta: _Optional[_Union[TextDeltaUpdate, _Mapping]] = ..., tool_call_started: _Optional[_Union[ToolCallStartedUpdate, _Mapping]] = ..., tool_call_completed: _Optional[_Union[ToolCallCompletedUpdate, _Mapping]] = ..., thinking_delta: _Optional[_Union[ThinkingDeltaUpdate, _Mapping]] = ..., thinking_completed: _Optional[_Union[ThinkingCompletedUpdate, _Mapping]] = ..., user_message_appended: _Optional[_Union[UserMessageAppendedUpdate, _Mapping]] = ..., partial_tool_call: _Optional[_Union[PartialToolCallUpdate, _Mapping]] = ..., token_delta: _Optional[_Union[TokenDeltaUpdate, _Mapping]] = ..., summary: _Optional[_Union[SummaryUpdate, _Mapping]] = ..., summary_started: _Optional[_Union[SummaryStartedUpdate, _Mapping]] = ..., summary_completed: _Optional[_Union[SummaryCompletedUpdate, _Mapping]] = ..., shell_output_delta: _Optional[_Union[ShellOutputDeltaUpdate, _Mapping]] = ..., heartbeat: _Optional[_Union[HeartbeatUpdate, _Mapping]] = ..., turn_ended: _Optional[_Union[TurnEndedUpdate, _Mapping]] = ..., tool_call_delta: _Optional[_Union[ToolCallDeltaUpdate, _Mapping]] = ..., step_started: _Optional[_Union[StepStartedUpdate, _Mapping]] = ..., step_completed: _Optional[_Union[StepCompletedUpdate, _Mapping]] = ..., prompt_suggestion: _Optional[_Union[PromptSuggestionUpdate, _Mapping]] = ..., post_request_prompt: _Optional[_Union[PostRequestPromptUpdate, _Mapping]] = ..., active_branch_change: _Optional[_Union[ActiveBranchChange, _Mapping]] = ..., feedback_request: _Optional[_Union[FeedbackRequestUpdate, _Mapping]] = ..., response_comparison: _Optional[_Union[ResponseComparisonUpdate, _Mapping]] = ..., context_injection_state: _Optional[_Union[ContextInjectionStateUpdate, _Mapping]] = ..., routed_model: _Optional[_Union[RoutedModelUpdate, _Mapping]] = ..., grok_bot_nudge: _Optional[_Union[GrokBotNudgeUpdate, _Mapping]] = ..., message_started_at_ms: _Optional[int] = ...) -> None: ...

class ExecServerMessage(_message.Message):
    __slots__ = ("id", "shell_args", "write_args", "delete_args", "grep_args", "read_args", "ls_args", "diagnostics_args", "request_context_args", "mcp_args", "shell_stream_args", "background_shell_spawn_args", "list_mcp_resources_exec_args", "read_mcp_resource_exec_args", "fetch_args", "write_shell_stdin_args", "subagent_args", "redacted_read_args", "exec_id", "span_context", "accept_hook_additional_contexts", "machine_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHELL_ARGS_FIELD_NUMBER: _ClassVar[int]
    WRITE_ARGS_FIELD_NUMBER: _ClassVar[int]
    DELETE_ARGS_FIELD_NUMBER: _ClassVar[int]
    GREP_ARGS_FIELD_NUMBER: _ClassVar[int]
    READ_ARGS_FIELD_NUMBER: _ClassVar[int]
    LS_ARGS_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_ARGS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_ARGS_FIELD_NUMBER: _ClassVar[int]
    MCP_ARGS_FIELD_NUMBER: _ClassVar[int]
    SHELL_STREAM_ARGS_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_SHELL_SPAWN_ARGS_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_EXEC_ARGS_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_EXEC_ARGS_FIELD_NUMBER: _ClassVar[int]
    FETCH_ARGS_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_ARGS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_ARGS_FIELD_NUMBER: _ClassVar[int]
    REDACTED_READ_ARGS_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    MACHINE_ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    shell_args: ShellArgs
    write_args: WriteArgs
    delete_args: DeleteArgs
    grep_args: GrepArgs
    read_args: ReadArgs
    ls_args: LsArgs
    diagnostics_args: DiagnosticsArgs
    request_context_args: RequestContextArgs
    mcp_args: McpArgs
    shell_stream_args: ShellArgs
    background_shell_spawn_args: BackgroundShellSpawnArgs
    list_mcp_resources_exec_args: ListMcpResourcesExecArgs
    read_mcp_resource_exec_args: ReadMcpResourceExecArgs
    fetch_args: FetchArgs
    write_shell_stdin_args: WriteShellStdinArgs
    subagent_args: SubagentArgs
    redacted_read_args: ReadArgs
    exec_id: str
    span_context: SpanContext
    accept_hook_additional_contexts: bool
    machine_id: str
    def __init__(self, id: _Optional[int] = ..., shell_args: _Optional[_Union[ShellArgs, _Mapping]] = ..., write_args: _Optional[_Union[WriteArgs, _Mapping]] = ..., delete_args: _Optional[_Union[DeleteArgs, _Mapping]] = ..., grep_args: _Optional[_Union[GrepArgs, _Mapping]] = ..., read_args: _Optional[_Union[ReadArgs, _Mapping]] = ..., ls_args: _Optional[_Union[LsArgs, _Mapping]] = ..., diagnostics_args: _Optional[_Union[DiagnosticsArgs, _Mapping]] = ..., request_context_args: _Optional[_Union[RequestContextArgs, _Mapping]] = ..., mcp_args: _Optional[_Union[McpArgs, _Mapping]] = ..., shell_stream_args: _Optional[_Union[ShellArgs, _Mapping]] = ..., background_shell_spawn_args: _Optional[_Union[BackgroundShellSpawnArgs, _Mapping]] = ..., list_mcp_resources_exec_args: _Optional[_Union[ListMcpResourcesExecArgs, _Mapping]] = ..., read_mcp_resource_exec_args: _Optional[_Union[ReadMcpResourceExecArgs, _Mapping]] = ..., fetch_args: _Optional[_Union[FetchArgs, _Mapping]] = ..., write_shell_stdin_args: _Optional[_Union[WriteShellStdinArgs, _Mapping]] = ..., subagent_args: _Optional[_Union[SubagentArgs, _Mapping]] = ..., redacted_read_args: _Optional[_Union[ReadArgs, _Mapping]] = ..., exec_id: _Optional[str] = ..., span_context: _Optional[_Union[SpanContext, _Mapping]] = ..., accept_hook_additional_contexts: _Optional[bool] = ..., machine_id: _Optional[str] = ...) -> None: ...

class ExecClientMessage(_message.Message):
    __slots__ = ("id", "shell_result", "write_result", "delete_result", "grep_result", "read_result", "ls_result", "diagnostics_result", "request_context_result", "mcp_result", "shell_stream", "background_shell_spawn_result", "list_mcp_resources_exec_result", "read_mcp_resource_exec_result", "fetch_result", "write_shell_stdin_result", "subagent_result", "redacted_read_result", "exec_id", "local_execution_time_ms", "hook_additional_contexts")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHELL_RESULT_FIELD_NUMBER: _ClassVar[int]
    WRITE_RESULT_FIELD_NUMBER: _ClassVar[int]
    DELETE_RESULT_FIELD_NUMBER: _ClassVar[int]
    GREP_RESULT_FIELD_NUMBER: _ClassVar[int]
    READ_RESULT_FIELD_NUMBER: _ClassVar[int]
    LS_RESULT_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_RESULT_FIELD_NUMBER: _ClassVar[int]
    MCP_RESULT_FIELD_NUMBER: _ClassVar[int]
    SHELL_STREAM_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_SHELL_SPAWN_RESULT_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_EXEC_RESULT_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_EXEC_RESULT_FIELD_NUMBER: _ClassVar[int]
    FETCH_RESULT_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_RESULT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_RESULT_FIELD_NUMBER: _ClassVar[int]
    REDACTED_READ_RESULT_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    id: int
    shell_result: ShellResult
    write_result: WriteResult
    delete_result: DeleteResult
    grep_result: GrepResult
    read_result: ReadResult
    ls_result: LsResult
    diagnostics_result: DiagnosticsResult
    request_context_result: RequestContextResult
    mcp_result: McpResult
    shell_stream: ShellStream
    background_shell_spawn_result: BackgroundShellSpawnResult
    list_mcp_resources_exec_result: ListMcpResourcesExecResult
    read_mcp_resource_exec_result: ReadMcpResourceExecResult
    fetch_result: FetchResult
    write_shell_stdin_result: WriteShellStdinResult
    subagent_result: SubagentResult
    redacted_read_result: ReadResult
    exec_id: str
    local_execution_time_ms: int
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    def __init__(self, id: _Optional[int] = ..., shell_result: _Optional[_Union[ShellResult, _Mapping]] = ..., write_result: _Optional[_Union[WriteResult, _Mapping]] = ..., delete_result: _Optional[_Union[DeleteResult, _Mapping]] = ..., grep_result: _Optional[_Union[GrepResult, _Mapping]] = ..., read_result: _Optional[_Union[ReadResult, _Mapping]] = ..., ls_result: _Optional[_Union[LsResult, _Mapping]] = ..., diagnostics_result: _Optional[_Union[DiagnosticsResult, _Mapping]] = ..., request_context_result: _Optional[_Union[RequestContextResult, _Mapping]] = ..., mcp_result: _Optional[_Union[McpResult, _Mapping]] = ..., shell_stream: _Optional[_Union[ShellStream, _Mapping]] = ..., background_shell_spawn_result: _Optional[_Union[BackgroundShellSpawnResult, _Mapping]] = ..., list_mcp_resources_exec_result: _Optional[_Union[ListMcpResourcesExecResult, _Mapping]] = ..., read_mcp_resource_exec_result: _Optional[_Union[ReadMcpResourceExecResult, _Mapping]] = ..., fetch_result: _Optional[_Union[FetchResult, _Mapping]] = ..., write_shell_stdin_result: _Optional[_Union[WriteShellStdinResult, _Mapping]] = ..., subagent_result: _Optional[_Union[SubagentResult, _Mapping]] = ..., redacted_read_result: _Optional[_Union[ReadResult, _Mapping]] = ..., exec_id: _Optional[str] = ..., local_execution_time_ms: _Optional[int] = ..., hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ...) -> None: ...

class ExecServerControlMessage(_message.Message):
    __slots__ = ("abort",)
    ABORT_FIELD_NUMBER: _ClassVar[int]
    abort: ExecServerAbort
    def __init__(self, abort: _Optional[_Union[ExecServerAbort, _Mapping]] = ...) -> None: ...

class ExecClientControlMessage(_message.Message):
    __slots__ = ("stream_close", "throw", "heartbeat")
    STREAM_CLOSE_FIELD_NUMBER: _ClassVar[int]
    THROW_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    stream_close: ExecClientStreamClose
    throw: ExecClientThrow
    heartbeat: ExecClientHeartbeat
    def __init__(self, stream_close: _Optional[_Union[ExecClientStreamClose, _Mapping]] = ..., throw: _Optional[_Union[ExecClientThrow, _Mapping]] = ..., heartbeat: _Optional[_Union[ExecClientHeartbeat, _Mapping]] = ...) -> None: ...

class KvServerMessage(_message.Message):
    __slots__ = ("id", "get_blob_args", "set_blob_args", "span_context")
    ID_FIELD_NUMBER: _ClassVar[int]
    GET_BLOB_ARGS_FIELD_NUMBER: _ClassVar[int]
    SET_BLOB_ARGS_FIELD_NUMBER: _ClassVar[int]
    SPAN_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    id: int
    get_blob_args: GetBlobArgs
    set_blob_args: SetBlobArgs
    span_context: SpanContext
    def __init__(self, id: _Optional[int] = ..., get_blob_args: _Optional[_Union[GetBlobArgs, _Mapping]] = ..., set_blob_args: _Optional[_Union[SetBlobArgs, _Mapping]] = ..., span_context: _Optional[_Union[SpanContext, _Mapping]] = ...) -> None: ...

class KvClientMessage(_message.Message):
    __slots__ = ("id", "get_blob_result", "set_blob_result")
    ID_FIELD_NUMBER: _ClassVar[int]
    GET_BLOB_RESULT_FIELD_NUMBER: _ClassVar[int]
    SET_BLOB_RESULT_FIELD_NUMBER: _ClassVar[int]
    id: int
    get_blob_result: GetBlobResult
    set_blob_result: SetBlobResult
    def __init__(self, id: _Optional[int] = ..., get_blob_result: _Optional[_Union[GetBlobResult, _Mapping]] = ..., set_blob_result: _Optional[_Union[SetBlobResult, _Mapping]] = ...) -> None: ...

class ConversationStateStructure(_message.Message):
    __slots__ = ("root_prompt_messages_json", "todos", "pending_tool_calls", "token_details", "summary", "plan", "turns", "previous_workspace_uris", "mode", "summary_archive", "file_states", "summary_archives", "turn_timings", "file_states_v2", "subagent_states", "self_summary_count", "read_paths", "active_branch_name", "agent_type", "subagent_threads", "communicate_update_final_summary", "conversation_started_timestamp_ms", "conversation_started_time_zone", "communicate_update_completed_subtitle", "subagent_state_refs", "is_root_project_conversation", "completed_ask_question_tool_call_ids", "durable_skill_blocks", "durable_custom_mode_id", "message_count_at_last_compaction", "recent_user_message_ids", "recent_user_message_ids_older_turn_count")
    class FileStatesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    class FileStatesV2Entry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: FileStateStructure
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[FileStateStructure, _Mapping]] = ...) -> None: ...
    class SubagentStatesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SubagentPersistedState
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SubagentPersistedState, _Mapping]] = ...) -> None: ...
    class SubagentThreadsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class SubagentStateRefsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: bytes
        def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ...) -> None: ...
    ROOT_PROMPT_MESSAGES_JSON_FIELD_NUMBER: _ClassVar[int]
    TODOS_FIELD_NUMBER: _ClassVar[int]
    PENDING_TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_DETAILS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_WORKSPACE_URIS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    FILE_STATES_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_ARCHIVES_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMINGS_FIELD_NUMBER: _ClassVar[int]
    FILE_STATES_V2_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_STATES_FIELD_NUMBER: _ClassVar[int]
    SELF_SUMMARY_COUNT_FIELD_NUMBER: _ClassVar[int]
    READ_PATHS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    AGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_THREADS_FIELD_NUMBER: _ClassVar[int]
    COMMUNICATE_UPDATE_FINAL_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_STARTED_TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_STARTED_TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    COMMUNICATE_UPDATE_COMPLETED_SUBTITLE_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_STATE_REFS_FIELD_NUMBER: _ClassVar[int]
    IS_ROOT_PROJECT_CONVERSATION_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_ASK_QUESTION_TOOL_CALL_IDS_FIELD_NUMBER: _ClassVar[int]
    DURABLE_SKILL_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    DURABLE_CUSTOM_MODE_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_COUNT_AT_LAST_COMPACTION_FIELD_NUMBER: _ClassVar[int]
    RECENT_USER_MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    RECENT_USER_MESSAGE_IDS_OLDER_TURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    root_prompt_messages_json: _containers.RepeatedScalarFieldContainer[bytes]
    todos: _containers.RepeatedScalarFieldContainer[bytes]
    pending_tool_calls: _containers.RepeatedScalarFieldContainer[str]
    token_details: ConversationTokenDetails
    summary: bytes
    plan: bytes
    turns: _containers.RepeatedScalarFieldContainer[bytes]
    previous_workspace_uris: _containers.RepeatedScalarFieldContainer[str]
    mode: AgentMode
    summary_archive: bytes
    file_states: _containers.ScalarMap[str, bytes]
    summary_archives: _containers.RepeatedScalarFieldContainer[bytes]
    turn_timings: _containers.RepeatedCompositeFieldContainer[StepTiming]
    file_states_v2: _containers.MessageMap[str, FileStateStructure]
    subagent_states: _containers.MessageMap[str, SubagentPersistedState]
    self_summary_count: int
    read_paths: _containers.RepeatedScalarFieldContainer[str]
    active_branch_name: str
    agent_type: str
    subagent_threads: _containers.ScalarMap[str, str]
    communicate_update_final_summary: str
    conversation_started_timestamp_ms: int
    conversation_started_time_zone: str
    communicate_update_completed_subtitle: str
    subagent_state_refs: _containers.ScalarMap[str, bytes]
    is_root_project_conversation: bool
    completed_ask_question_tool_call_ids: _containers.RepeatedScalarFieldContainer[str]
    durable_skill_blocks: _containers.RepeatedScalarFieldContainer[str]
    durable_custom_mode_id: str
    message_count_at_last_compaction: int
    recent_user_message_ids: _containers.RepeatedScalarFieldContainer[str]
    recent_user_message_ids_older_turn_count: int
    def __init__(self, root_prompt_messages_json: _Optional[_Iterable[bytes]] = ..., todos: _Optional[_Iterable[bytes]] = ..., pending_tool_calls: _Optional[_Iterable[str]] = ..., token_details: _Optional[_Union[ConversationTokenDetails, _Mapping]] = ..., summary: _Optional[bytes] = ..., plan: _Optional[bytes] = ..., turns: _Optional[_Iterable[bytes]] = ..., previous_workspace_uris: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[AgentMode, str]] = ..., summary_archive: _Optional[bytes] = ..., file_states: _Optional[_Mapping[str, bytes]] = ..., summary_archives: _Optional[_Iterable[bytes]] = ..., turn_timings: _Optional[_Iterable[_Union[StepTiming, _Mapping]]] = ..., file_states_v2: _Optional[_Mapping[str, FileStateStructure]] = ..., subagent_states: _Optional[_Mapping[str, SubagentPersistedState]] = ..., self_summary_count: _Optional[int] = ..., read_paths: _Optional[_Iterable[str]] = ..., active_branch_name: _Optional[str] = ..., agent_type: _Optional[str] = ..., subagent_threads: _Optional[_Mapping[str, str]] = ..., communicate_update_final_summary: _Optional[str] = ..., conversation_started_timestamp_ms: _Optional[int] = ..., conversation_started_time_zone: _Optional[str] = ..., communicate_update_completed_subtitle: _Optional[str] = ..., subagent_state_refs: _Optional[_Mapping[str, bytes]] = ..., is_root_project_conversation: _Optional[bool] = ..., completed_ask_question_tool_call_ids: _Optional[_Iterable[str]] = ..., durable_skill_blocks: _Optional[_Iterable[str]] = ..., durable_custom_mode_id: _Optional[str] = ..., message_count_at_last_compaction: _Optional[int] = ..., recent_user_message_ids: _Optional[_Iterable[str]] = ..., recent_user_message_ids_older_turn_count: _Optional[int] = ...) -> None: ...

class ConversationTokenDetails(_message.Message):
    __slots__ = ("used_tokens", "max_tokens", "breakdown", "prompt_context_usage_snapshot_blob_id")
    USED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    PROMPT_CONTEXT_USAGE_SNAPSHOT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    used_tokens: int
    max_tokens: int
    breakdown: PromptTokenBreakdownSnapshot
    prompt_context_usage_snapshot_blob_id: bytes
    def __init__(self, used_tokens: _Optional[int] = ..., max_tokens: _Optional[int] = ..., breakdown: _Optional[_Union[PromptTokenBreakdownSnapshot, _Mapping]] = ..., prompt_context_usage_snapshot_blob_id: _Optional[bytes] = ...) -> None: ...

class ConversationTurnStructure(_message.Message):
    __slots__ = ("agent_conversation_turn",)
    AGENT_CONVERSATION_TURN_FIELD_NUMBER: _ClassVar[int]
    agent_conversation_turn: AgentConversationTurnStructure
    def __init__(self, agent_conversation_turn: _Optional[_Union[AgentConversationTurnStructure, _Mapping]] = ...) -> None: ...

class AgentConversationTurnStructure(_message.Message):
    __slots__ = ("user_message", "steps", "request_id", "user_message_id")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    user_message: bytes
    steps: _containers.RepeatedScalarFieldContainer[bytes]
    request_id: str
    user_message_id: str
    def __init__(self, user_message: _Optional[bytes] = ..., steps: _Optional[_Iterable[bytes]] = ..., request_id: _Optional[str] = ..., user_message_id: _Optional[str] = ...) -> None: ...

class ConversationStep(_message.Message):
    __slots__ = ("assistant_message", "tool_call", "thinking_message")
    ASSISTANT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    THINKING_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    assistant_message: AssistantMessage
    tool_call: ToolCall
    thinking_message: ThinkingMessage
    def __init__(self, assistant_message: _Optional[_Union[AssistantMessage, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., thinking_message: _Optional[_Union[ThinkingMessage, _Mapping]] = ...) -> None: ...

class AssistantMessage(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ThinkingMessage(_message.Message):
    __slots__ = ("text", "duration_ms")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    text: str
    duration_ms: int
    def __init__(self, text: _Optional[str] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class InteractionQuery(_message.Message):
    __slots__ = ("id", "web_search_request_query", "ask_question_interaction_query", "switch_mode_request_query", "create_plan_request_query", "web_fetch_request_query")
    ID_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_INTERACTION_QUERY_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_REQUEST_QUERY_FIELD_NUMBER: _ClassVar[int]
    id: int
    web_search_request_query: WebSearchRequestQuery
    ask_question_interaction_query: AskQuestionInteractionQuery
    switch_mode_request_query: SwitchModeRequestQuery
    create_plan_request_query: CreatePlanRequestQuery
    web_fetch_request_query: WebFetchRequestQuery
    def __init__(self, id: _Optional[int] = ..., web_search_request_query: _Optional[_Union[WebSearchRequestQuery, _Mapping]] = ..., ask_question_interaction_query: _Optional[_Union[AskQuestionInteractionQuery, _Mapping]] = ..., switch_mode_request_query: _Optional[_Union[SwitchModeRequestQuery, _Mapping]] = ..., create_plan_request_query: _Optional[_Union[CreatePlanRequestQuery, _Mapping]] = ..., web_fetch_request_query: _Optional[_Union[WebFetchRequestQuery, _Mapping]] = ...) -> None: ...

class InteractionResponse(_message.Message):
    __slots__ = ("id", "web_search_request_response", "ask_question_interaction_response", "switch_mode_request_response", "create_plan_request_response", "web_fetch_request_response")
    ID_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_INTERACTION_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_REQUEST_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    id: int
    web_search_request_response: WebSearchRequestResponse
    ask_question_interaction_response: AskQuestionInteractionResponse
    switch_mode_request_response: SwitchModeRequestResponse
    create_plan_request_response: CreatePlanRequestResponse
    web_fetch_request_response: WebFetchRequestResponse
    def __init__(self, id: _Optional[int] = ..., web_search_request_response: _Optional[_Union[WebSearchRequestResponse, _Mapping]] = ..., ask_question_interaction_response: _Optional[_Union[AskQuestionInteractionResponse, _Mapping]] = ..., switch_mode_request_response: _Optional[_Union[SwitchModeRequestResponse, _Mapping]] = ..., create_plan_request_response: _Optional[_Union[CreatePlanRequestResponse, _Mapping]] = ..., web_fetch_request_response: _Optional[_Union[WebFetchRequestResponse, _Mapping]] = ...) -> None: ...

class ToolCall(_message.Message):
    __slots__ = ("shell_tool_call", "delete_tool_call", "glob_tool_call", "grep_tool_call", "read_tool_call", "update_todos_tool_call", "read_todos_tool_call", "edit_tool_call", "ls_tool_call", "read_lints_tool_call", "mcp_tool_call", "sem_search_tool_call", "create_plan_tool_call", "web_search_tool_call", "task_tool_call", "list_mcp_resources_tool_call", "read_mcp_resource_tool_call", "ask_question_tool_call", "fetch_tool_call", "switch_mode_tool_call", "write_shell_stdin_tool_call", "truncated_tool_call", "web_fetch_tool_call", "tool_call_id", "started_at_ms", "completed_at_ms")
    SHELL_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    DELETE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    GLOB_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    GREP_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TODOS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_TODOS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    EDIT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    LS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_LINTS_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SEM_SEARCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    CREATE_PLAN_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TASK_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    LIST_MCP_RESOURCES_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    READ_MCP_RESOURCE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    FETCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    SWITCH_MODE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WRITE_SHELL_STDIN_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    shell_tool_call: ShellToolCall
    delete_tool_call: DeleteToolCall
    glob_tool_call: GlobToolCall
    grep_tool_call: GrepToolCall
    read_tool_call: ReadToolCall
    update_todos_tool_call: UpdateTodosToolCall
    read_todos_tool_call: ReadTodosToolCall
    edit_tool_call: EditToolCall
    ls_tool_call: LsToolCall
    read_lints_tool_call: ReadLintsToolCall
    mcp_tool_call: McpToolCall
    sem_search_tool_call: SemSearchToolCall
    create_plan_tool_call: CreatePlanToolCall
    web_search_tool_call: WebSearchToolCall
    task_tool_call: TaskToolCall
    list_mcp_resources_tool_call: ListMcpResourcesToolCall
    read_mcp_resource_tool_call: ReadMcpResourceToolCall
    ask_question_tool_call: AskQuestionToolCall
    fetch_tool_call: FetchToolCall
    switch_mode_tool_call: SwitchModeToolCall
    write_shell_stdin_tool_call: WriteShellStdinToolCall
    truncated_tool_call: TruncatedToolCall
    web_fetch_tool_call: WebFetchToolCall
    tool_call_id: str
    started_at_ms: int
    completed_at_ms: int
    def __init__(self, shell_tool_call: _Optional[_Union[ShellToolCall, _Mapping]] = ..., delete_tool_call: _Optional[_Union[DeleteToolCall, _Mapping]] = ..., glob_tool_call: _Optional[_Union[GlobToolCall, _Mapping]] = ..., grep_tool_call: _Optional[_Union[GrepToolCall, _Mapping]] = ..., read_tool_call: _Optional[_Union[ReadToolCall, _Mapping]] = ..., update_todos_tool_call: _Optional[_Union[UpdateTodosToolCall, _Mapping]] = ..., read_todos_tool_call: _Optional[_Union[ReadTodosToolCall, _Mapping]] = ..., edit_tool_call: _Optional[_Union[EditToolCall, _Mapping]] = ..., ls_tool_call: _Optional[_Union[LsToolCall, _Mapping]] = ..., read_lints_tool_call: _Optional[_Union[ReadLintsToolCall, _Mapping]] = ..., mcp_tool_call: _Optional[_Union[McpToolCall, _Mapping]] = ..., sem_search_tool_call: _Optional[_Union[SemSearchToolCall, _Mapping]] = ..., create_plan_tool_call: _Optional[_Union[CreatePlanToolCall, _Mapping]] = ..., web_search_tool_call: _Optional[_Union[WebSearchToolCall, _Mapping]] = ..., task_tool_call: _Optional[_Union[TaskToolCall, _Mapping]] = ..., list_mcp_resources_tool_call: _Optional[_Union[ListMcpResourcesToolCall, _Mapping]] = ..., read_mcp_resource_tool_call: _Optional[_Union[ReadMcpResourceToolCall, _Mapping]] = ..., ask_question_tool_call: _Optional[_Union[AskQuestionToolCall, _Mapping]] = ..., fetch_tool_call: _Optional[_Union[FetchToolCall, _Mapping]] = ..., switch_mode_tool_call: _Optional[_Union[SwitchModeToolCall, _Mapping]] = ..., write_shell_stdin_tool_call: _Optional[_Union[WriteShellStdinToolCall, _Mapping]] = ..., truncated_tool_call: _Optional[_Union[TruncatedToolCall, _Mapping]] = ..., web_fetch_tool_call: _Optional[_Union[WebFetchToolCall, _Mapping]] = ..., tool_call_id: _Optional[str] = ..., started_at_ms: _Optional[int] = ..., completed_at_ms: _Optional[int] = ...) -> None: ...

class GetUsableModelsRequest(_message.Message):
    __slots__ = ("custom_model_ids",)
    CUSTOM_MODEL_IDS_FIELD_NUMBER: _ClassVar[int]
    custom_model_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, custom_model_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetUsableModelsResponse(_message.Message):
    __slots__ = ("models",)
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelDetails]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelDetails, _Mapping]]] = ...) -> None: ...

class GetDefaultModelForCliRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetDefaultModelForCliResponse(_message.Message):
    __slots__ = ("model",)
    MODEL_FIELD_NUMBER: _ClassVar[int]
    model: ModelDetails
    def __init__(self, model: _Optional[_Union[ModelDetails, _Mapping]] = ...) -> None: ...

class NameAgentRequest(_message.Message):
    __slots__ = ("user_message",)
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    user_message: str
    def __init__(self, user_message: _Optional[str] = ...) -> None: ...

class NameAgentResponse(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ActiveBranchChange(_message.Message):
    __slots__ = ("path", "branch_name")
    PATH_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    path: str
    branch_name: str
    def __init__(self, path: _Optional[str] = ..., branch_name: _Optional[str] = ...) -> None: ...

class AgentSkill(_message.Message):
    __slots__ = ("full_path", "content", "description", "parse_error", "environments", "disabled_environments", "git_remote_origin", "disable_model_invocation", "plugin", "marketplace", "plugin_id", "marketplace_id", "globs", "scoped_to")
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARSE_ERROR_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    DISABLED_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    GIT_REMOTE_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    DISABLE_MODEL_INVOCATION_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_ID_FIELD_NUMBER: _ClassVar[int]
    GLOBS_FIELD_NUMBER: _ClassVar[int]
    SCOPED_TO_FIELD_NUMBER: _ClassVar[int]
    full_path: str
    content: str
    description: str
    parse_error: str
    environments: _containers.RepeatedScalarFieldContainer[str]
    disabled_environments: _containers.RepeatedScalarFieldContainer[str]
    git_remote_origin: str
    disable_model_invocation: bool
    plugin: str
    marketplace: str
    plugin_id: str
    marketplace_id: str
    globs: _containers.RepeatedScalarFieldContainer[str]
    scoped_to: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, full_path: _Optional[str] = ..., content: _Optional[str] = ..., description: _Optional[str] = ..., parse_error: _Optional[str] = ..., environments: _Optional[_Iterable[str]] = ..., disabled_environments: _Optional[_Iterable[str]] = ..., git_remote_origin: _Optional[str] = ..., disable_model_invocation: _Optional[bool] = ..., plugin: _Optional[str] = ..., marketplace: _Optional[str] = ..., plugin_id: _Optional[str] = ..., marketplace_id: _Optional[str] = ..., globs: _Optional[_Iterable[str]] = ..., scoped_to: _Optional[_Iterable[str]] = ...) -> None: ...

class ApiKeyCredentials(_message.Message):
    __slots__ = ("api_key", "base_url")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    def __init__(self, api_key: _Optional[str] = ..., base_url: _Optional[str] = ...) -> None: ...

class AsyncAskQuestionCompletionAction(_message.Message):
    __slots__ = ("original_tool_call_id", "original_args", "result")
    ORIGINAL_TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    original_tool_call_id: str
    original_args: AskQuestionArgs
    result: AskQuestionResult
    def __init__(self, original_tool_call_id: _Optional[str] = ..., original_args: _Optional[_Union[AskQuestionArgs, _Mapping]] = ..., result: _Optional[_Union[AskQuestionResult, _Mapping]] = ...) -> None: ...

class AskQuestionArgs(_message.Message):
    __slots__ = ("title", "questions", "run_async", "async_original_tool_call_id")
    class Option(_message.Message):
        __slots__ = ("id", "label")
        ID_FIELD_NUMBER: _ClassVar[int]
        LABEL_FIELD_NUMBER: _ClassVar[int]
        id: str
        label: str
        def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...
    class Question(_message.Message):
        __slots__ = ("id", "prompt", "options", "allow_multiple")
        ID_FIELD_NUMBER: _ClassVar[int]
        PROMPT_FIELD_NUMBER: _ClassVar[int]
        OPTIONS_FIELD_NUMBER: _ClassVar[int]
        ALLOW_MULTIPLE_FIELD_NUMBER: _ClassVar[int]
        id: str
        prompt: str
        options: _containers.RepeatedCompositeFieldContainer[AskQuestionArgs.Option]
        allow_multiple: bool
        def __init__(self, id: _Optional[str] = ..., prompt: _Optional[str] = ..., options: _Optional[_Iterable[_Union[AskQuestionArgs.Option, _Mapping]]] = ..., allow_multiple: _Optional[bool] = ...) -> None: ...
    TITLE_FIELD_NUMBER: _ClassVar[int]
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    RUN_ASYNC_FIELD_NUMBER: _ClassVar[int]
    ASYNC_ORIGINAL_TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    title: str
    questions: _containers.RepeatedCompositeFieldContainer[AskQuestionArgs.Question]
    run_async: bool
    async_original_tool_call_id: str
    def __init__(self, title: _Optional[str] = ..., questions: _Optional[_Iterable[_Union[AskQuestionArgs.Question, _Mapping]]] = ..., run_async: _Optional[bool] = ..., async_original_tool_call_id: _Optional[str] = ...) -> None: ...

class AskQuestionAsync(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AskQuestionError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class AskQuestionInteractionQuery(_message.Message):
    __slots__ = ("args", "tool_call_id")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    args: AskQuestionArgs
    tool_call_id: str
    def __init__(self, args: _Optional[_Union[AskQuestionArgs, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class AskQuestionInteractionResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: AskQuestionResult
    def __init__(self, result: _Optional[_Union[AskQuestionResult, _Mapping]] = ...) -> None: ...

class AskQuestionRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class AskQuestionResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ASYNC_FIELD_NUMBER: _ClassVar[int]
    success: AskQuestionSuccess
    error: AskQuestionError
    rejected: AskQuestionRejected
    def __init__(self, success: _Optional[_Union[AskQuestionSuccess, _Mapping]] = ..., error: _Optional[_Union[AskQuestionError, _Mapping]] = ..., rejected: _Optional[_Union[AskQuestionRejected, _Mapping]] = ..., **kwargs) -> None: ...

class AskQuestionSuccess(_message.Message):
    __slots__ = ("answers",)
    class Answer(_message.Message):
        __slots__ = ("question_id", "selected_option_ids", "freeform_text")
        QUESTION_ID_FIELD_NUMBER: _ClassVar[int]
        SELECTED_OPTION_IDS_FIELD_NUMBER: _ClassVar[int]
        FREEFORM_TEXT_FIELD_NUMBER: _ClassVar[int]
        question_id: str
        selected_option_ids: _containers.RepeatedScalarFieldContainer[str]
        freeform_text: str
        def __init__(self, question_id: _Optional[str] = ..., selected_option_ids: _Optional[_Iterable[str]] = ..., freeform_text: _Optional[str] = ...) -> None: ...
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    answers: _containers.RepeatedCompositeFieldContainer[AskQuestionSuccess.Answer]
    def __init__(self, answers: _Optional[_Iterable[_Union[AskQuestionSuccess.Answer, _Mapping]]] = ...) -> None: ...

class AskQuestionToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: AskQuestionArgs
    result: AskQuestionResult
    def __init__(self, args: _Optional[_Union[AskQuestionArgs, _Mapping]] = ..., result: _Optional[_Union[AskQuestionResult, _Mapping]] = ...) -> None: ...

class AzureCredentials(_message.Message):
    __slots__ = ("api_key", "base_url", "deployment")
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    deployment: str
    def __init__(self, api_key: _Optional[str] = ..., base_url: _Optional[str] = ..., deployment: _Optional[str] = ...) -> None: ...

class BackgroundShellSpawnArgs(_message.Message):
    __slots__ = ("command", "working_directory", "tool_call_id", "parsing_result", "sandbox_policy", "enable_write_shell_stdin_tool", "description", "classifier_result", "output_notification", "smart_mode_approval", "hook_approval_requirement", "skip_approval", "conversation_id")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PARSING_RESULT_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    ENABLE_WRITE_SHELL_STDIN_TOOL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    HOOK_APPROVAL_REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    tool_call_id: str
    parsing_result: ShellCommandParsingResult
    sandbox_policy: SandboxPolicy
    enable_write_shell_stdin_tool: bool
    description: str
    classifier_result: CommandClassifierResult
    output_notification: ShellOutputNotificationConfig
    smart_mode_approval: SmartModeApproval
    hook_approval_requirement: ShellHookApprovalRequirement
    skip_approval: bool
    conversation_id: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., parsing_result: _Optional[_Union[ShellCommandParsingResult, _Mapping]] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., enable_write_shell_stdin_tool: _Optional[bool] = ..., description: _Optional[str] = ..., classifier_result: _Optional[_Union[CommandClassifierResult, _Mapping]] = ..., output_notification: _Optional[_Union[ShellOutputNotificationConfig, _Mapping]] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., hook_approval_requirement: _Optional[_Union[ShellHookApprovalRequirement, _Mapping]] = ..., skip_approval: _Optional[bool] = ..., conversation_id: _Optional[str] = ...) -> None: ...

class BackgroundShellSpawnError(_message.Message):
    __slots__ = ("command", "working_directory", "error")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class BackgroundShellSpawnResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied", "sandbox_unsupported")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    success: BackgroundShellSpawnSuccess
    error: BackgroundShellSpawnError
    rejected: ShellRejected
    permission_denied: ShellPermissionDenied
    sandbox_unsupported: ShellSandboxUnsupported
    def __init__(self, success: _Optional[_Union[BackgroundShellSpawnSuccess, _Mapping]] = ..., error: _Optional[_Union[BackgroundShellSpawnError, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ..., sandbox_unsupported: _Optional[_Union[ShellSandboxUnsupported, _Mapping]] = ...) -> None: ...

class BackgroundShellSpawnSuccess(_message.Message):
    __slots__ = ("shell_id", "command", "working_directory", "pid")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    command: str
    working_directory: str
    pid: int
    def __init__(self, shell_id: _Optional[int] = ..., command: _Optional[str] = ..., working_directory: _Optional[str] = ..., pid: _Optional[int] = ...) -> None: ...

class BedrockCredentials(_message.Message):
    __slots__ = ("access_key", "secret_key", "region", "session_token")
    ACCESS_KEY_FIELD_NUMBER: _ClassVar[int]
    SECRET_KEY_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    SESSION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    access_key: str
    secret_key: str
    region: str
    session_token: str
    def __init__(self, access_key: _Optional[str] = ..., secret_key: _Optional[str] = ..., region: _Optional[str] = ..., session_token: _Optional[str] = ...) -> None: ...

class CallFrame(_message.Message):
    __slots__ = ("function_name", "url", "line_number", "column_number")
    FUNCTION_NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    COLUMN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    function_name: str
    url: str
    line_number: int
    column_number: int
    def __init__(self, function_name: _Optional[str] = ..., url: _Optional[str] = ..., line_number: _Optional[int] = ..., column_number: _Optional[int] = ...) -> None: ...

class CancelAction(_message.Message):
    __slots__ = ("reason", "interrupted_pending_tool_call_resolutions")
    REASON_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTED_PENDING_TOOL_CALL_RESOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    reason: str
    interrupted_pending_tool_call_resolutions: InterruptedPendingToolCallResolutions
    def __init__(self, reason: _Optional[str] = ..., interrupted_pending_tool_call_resolutions: _Optional[_Union[InterruptedPendingToolCallResolutions, _Mapping]] = ...) -> None: ...

class CancelSubagentAction(_message.Message):
    __slots__ = ("subagent_id",)
    SUBAGENT_ID_FIELD_NUMBER: _ClassVar[int]
    subagent_id: str
    def __init__(self, subagent_id: _Optional[str] = ...) -> None: ...

class CodeBlock(_message.Message):
    __slots__ = ("relative_workspace_path", "file_contents", "range", "contents", "signatures", "override_contents", "original_contents", "detailed_lines", "file_contents_length", "file_git_context")
    class Signatures(_message.Message):
        __slots__ = ("ranges",)
        RANGES_FIELD_NUMBER: _ClassVar[int]
        ranges: _containers.RepeatedCompositeFieldContainer[CursorRange]
        def __init__(self, ranges: _Optional[_Iterable[_Union[CursorRange, _Mapping]]] = ...) -> None: ...
    RELATIVE_WORKSPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    CONTENTS_FIELD_NUMBER: _ClassVar[int]
    SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    OVERRIDE_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    DETAILED_LINES_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENTS_LENGTH_FIELD_NUMBER: _ClassVar[int]
    FILE_GIT_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    relative_workspace_path: str
    file_contents: str
    range: CursorRange
    contents: str
    signatures: CodeBlock.Signatures
    override_contents: str
    original_contents: str
    detailed_lines: _containers.RepeatedCompositeFieldContainer[DetailedLine]
    file_contents_length: int
    file_git_context: FileGit
    def __init__(self, relative_workspace_path: _Optional[str] = ..., file_contents: _Optional[str] = ..., range: _Optional[_Union[CursorRange, _Mapping]] = ..., contents: _Optional[str] = ..., signatures: _Optional[_Union[CodeBlock.Signatures, _Mapping]] = ..., override_contents: _Optional[str] = ..., original_contents: _Optional[str] = ..., detailed_lines: _Optional[_Iterable[_Union[DetailedLine, _Mapping]]] = ..., file_contents_length: _Optional[int] = ..., file_git_context: _Optional[_Union[FileGit, _Mapping]] = ...) -> None: ...

class CodeResult(_message.Message):
    __slots__ = ("code_block", "score")
    CODE_BLOCK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    code_block: CodeBlock
    score: float
    def __init__(self, code_block: _Optional[_Union[CodeBlock, _Mapping]] = ..., score: _Optional[float] = ...) -> None: ...

class CommandClassifierResult(_message.Message):
    __slots__ = ("commands", "suggested_sandbox_mode", "classification_failed")
    class SuggestedSandboxMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        SUGGESTED_SANDBOX_MODE_UNSPECIFIED: _ClassVar[CommandClassifierResult.SuggestedSandboxMode]
        SUGGESTED_SANDBOX_MODE_SANDBOX: _ClassVar[CommandClassifierResult.SuggestedSandboxMode]
        SUGGESTED_SANDBOX_MODE_NO_SANDBOX: _ClassVar[CommandClassifierResult.SuggestedSandboxMode]
        SUGGESTED_SANDBOX_MODE_UNDETERMINED: _ClassVar[CommandClassifierResult.SuggestedSandboxMode]
    SUGGESTED_SANDBOX_MODE_UNSPECIFIED: CommandClassifierResult.SuggestedSandboxMode
    SUGGESTED_SANDBOX_MODE_SANDBOX: CommandClassifierResult.SuggestedSandboxMode
    SUGGESTED_SANDBOX_MODE_NO_SANDBOX: CommandClassifierResult.SuggestedSandboxMode
    SUGGESTED_SANDBOX_MODE_UNDETERMINED: CommandClassifierResult.SuggestedSandboxMode
    class ClassifiedCommand(_message.Message):
        __slots__ = ("name", "arguments", "suggested_allowlist_entry", "subcommand_tokens")
        NAME_FIELD_NUMBER: _ClassVar[int]
        ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
        SUGGESTED_ALLOWLIST_ENTRY_FIELD_NUMBER: _ClassVar[int]
        SUBCOMMAND_TOKENS_FIELD_NUMBER: _ClassVar[int]
        name: str
        arguments: _containers.RepeatedScalarFieldContainer[str]
        suggested_allowlist_entry: str
        subcommand_tokens: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, name: _Optional[str] = ..., arguments: _Optional[_Iterable[str]] = ..., suggested_allowlist_entry: _Optional[str] = ..., subcommand_tokens: _Optional[_Iterable[str]] = ...) -> None: ...
    COMMANDS_FIELD_NUMBER: _ClassVar[int]
    SUGGESTED_SANDBOX_MODE_FIELD_NUMBER: _ClassVar[int]
    CLASSIFICATION_FAILED_FIELD_NUMBER: _ClassVar[int]
    commands: _containers.RepeatedCompositeFieldContainer[CommandClassifierResult.ClassifiedCommand]
    suggested_sandbox_mode: CommandClassifierResult.SuggestedSandboxMode
    classification_failed: bool
    def __init__(self, commands: _Optional[_Iterable[_Union[CommandClassifierResult.ClassifiedCommand, _Mapping]]] = ..., suggested_sandbox_mode: _Optional[_Union[CommandClassifierResult.SuggestedSandboxMode, str]] = ..., classification_failed: _Optional[bool] = ...) -> None: ...

class ContextInjectionCancelled(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ContextInjectionDelivered(_message.Message):
    __slots__ = ("step", "delivery_batch_id", "delivered_at_ms")
    STEP_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_BATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    step: int
    delivery_batch_id: str
    delivered_at_ms: int
    def __init__(self, step: _Optional[int] = ..., delivery_batch_id: _Optional[str] = ..., delivered_at_ms: _Optional[int] = ...) -> None: ...

class ContextInjectionQueued(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ContextInjectionQueuedForNextTurn(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ContextInjectionRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ContextInjectionState(_message.Message):
    __slots__ = ("queued", "delivered", "queued_for_next_turn", "cancelled", "rejected")
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FOR_NEXT_TURN_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    queued: ContextInjectionQueued
    delivered: ContextInjectionDelivered
    queued_for_next_turn: ContextInjectionQueuedForNextTurn
    cancelled: ContextInjectionCancelled
    rejected: ContextInjectionRejected
    def __init__(self, queued: _Optional[_Union[ContextInjectionQueued, _Mapping]] = ..., delivered: _Optional[_Union[ContextInjectionDelivered, _Mapping]] = ..., queued_for_next_turn: _Optional[_Union[ContextInjectionQueuedForNextTurn, _Mapping]] = ..., cancelled: _Optional[_Union[ContextInjectionCancelled, _Mapping]] = ..., rejected: _Optional[_Union[ContextInjectionRejected, _Mapping]] = ...) -> None: ...

class ContextInjectionStateUpdate(_message.Message):
    __slots__ = ("injection_id", "state")
    INJECTION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    injection_id: str
    state: ContextInjectionState
    def __init__(self, injection_id: _Optional[str] = ..., state: _Optional[_Union[ContextInjectionState, _Mapping]] = ...) -> None: ...

class ConversationHistory(_message.Message):
    __slots__ = ("messages", "replace_user_info")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    REPLACE_USER_INFO_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ConversationHistoryMessage]
    replace_user_info: bool
    def __init__(self, messages: _Optional[_Iterable[_Union[ConversationHistoryMessage, _Mapping]]] = ..., replace_user_info: _Optional[bool] = ...) -> None: ...

class ConversationHistoryAssistantContent(_message.Message):
    __slots__ = ("text", "reasoning", "redacted_reasoning", "tool_call")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    REDACTED_REASONING_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    text: ConversationHistoryTextContent
    reasoning: ConversationHistoryReasoningContent
    redacted_reasoning: ConversationHistoryRedactedReasoningContent
    tool_call: ConversationHistoryToolCall
    def __init__(self, text: _Optional[_Union[ConversationHistoryTextContent, _Mapping]] = ..., reasoning: _Optional[_Union[ConversationHistoryReasoningContent, _Mapping]] = ..., redacted_reasoning: _Optional[_Union[ConversationHistoryRedactedReasoningContent, _Mapping]] = ..., tool_call: _Optional[_Union[ConversationHistoryToolCall, _Mapping]] = ...) -> None: ...

class ConversationHistoryAssistantMessage(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[ConversationHistoryAssistantContent]
    def __init__(self, content: _Optional[_Iterable[_Union[ConversationHistoryAssistantContent, _Mapping]]] = ...) -> None: ...

class ConversationHistoryImageContent(_message.Message):
    __slots__ = ("data", "mime_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: str
    mime_type: str
    def __init__(self, data: _Optional[str] = ..., mime_type: _Optional[str] = ...) -> None: ...

class ConversationHistoryMessage(_message.Message):
    __slots__ = ("user", "assistant", "tool")
    USER_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    user: ConversationHistoryUserMessage
    assistant: ConversationHistoryAssistantMessage
    tool: ConversationHistoryToolMessage
    def __init__(self, user: _Optional[_Union[ConversationHistoryUserMessage, _Mapping]] = ..., assistant: _Optional[_Union[ConversationHistoryAssistantMessage, _Mapping]] = ..., tool: _Optional[_Union[ConversationHistoryToolMessage, _Mapping]] = ...) -> None: ...

class ConversationHistoryReasoningContent(_message.Message):
    __slots__ = ("text", "signature")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    text: str
    signature: str
    def __init__(self, text: _Optional[str] = ..., signature: _Optional[str] = ...) -> None: ...

class ConversationHistoryRedactedReasoningContent(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ConversationHistoryTextContent(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ConversationHistoryToolCall(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "args_json")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARGS_JSON_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    args_json: str
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., args_json: _Optional[str] = ...) -> None: ...

class ConversationHistoryToolMessage(_message.Message):
    __slots__ = ("tool_call_id", "tool_name", "content", "is_error", "hook_additional_contexts")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    tool_name: str
    content: _containers.RepeatedCompositeFieldContainer[ConversationHistoryToolResultContent]
    is_error: bool
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    def __init__(self, tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., content: _Optional[_Iterable[_Union[ConversationHistoryToolResultContent, _Mapping]]] = ..., is_error: _Optional[bool] = ..., hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ...) -> None: ...

class ConversationHistoryToolResultContent(_message.Message):
    __slots__ = ("text", "image")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    text: ConversationHistoryTextContent
    image: ConversationHistoryImageContent
    def __init__(self, text: _Optional[_Union[ConversationHistoryTextContent, _Mapping]] = ..., image: _Optional[_Union[ConversationHistoryImageContent, _Mapping]] = ...) -> None: ...

class ConversationHistoryUserContent(_message.Message):
    __slots__ = ("text", "image")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    text: ConversationHistoryTextContent
    image: ConversationHistoryImageContent
    def __init__(self, text: _Optional[_Union[ConversationHistoryTextContent, _Mapping]] = ..., image: _Optional[_Union[ConversationHistoryImageContent, _Mapping]] = ...) -> None: ...

class ConversationHistoryUserMessage(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[ConversationHistoryUserContent]
    def __init__(self, content: _Optional[_Iterable[_Union[ConversationHistoryUserContent, _Mapping]]] = ...) -> None: ...

class ConversationPlan(_message.Message):
    __slots__ = ("plan",)
    PLAN_FIELD_NUMBER: _ClassVar[int]
    plan: str
    def __init__(self, plan: _Optional[str] = ...) -> None: ...

class CreatePlanArgs(_message.Message):
    __slots__ = ("plan", "todos", "overview", "name", "is_project", "phases")
    PLAN_FIELD_NUMBER: _ClassVar[int]
    TODOS_FIELD_NUMBER: _ClassVar[int]
    OVERVIEW_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    IS_PROJECT_FIELD_NUMBER: _ClassVar[int]
    PHASES_FIELD_NUMBER: _ClassVar[int]
    plan: str
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    overview: str
    name: str
    is_project: bool
    phases: _containers.RepeatedCompositeFieldContainer[Phase]
    def __init__(self, plan: _Optional[str] = ..., todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ..., overview: _Optional[str] = ..., name: _Optional[str] = ..., is_project: _Optional[bool] = ..., phases: _Optional[_Iterable[_Union[Phase, _Mapping]]] = ...) -> None: ...

class CreatePlanError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class CreatePlanRequestQuery(_message.Message):
    __slots__ = ("args", "tool_call_id")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    args: CreatePlanArgs
    tool_call_id: str
    def __init__(self, args: _Optional[_Union[CreatePlanArgs, _Mapping]] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class CreatePlanRequestResponse(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: CreatePlanResult
    def __init__(self, result: _Optional[_Union[CreatePlanResult, _Mapping]] = ...) -> None: ...

class CreatePlanResult(_message.Message):
    __slots__ = ("success", "error", "plan_uri")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PLAN_URI_FIELD_NUMBER: _ClassVar[int]
    success: CreatePlanSuccess
    error: CreatePlanError
    plan_uri: str
    def __init__(self, success: _Optional[_Union[CreatePlanSuccess, _Mapping]] = ..., error: _Optional[_Union[CreatePlanError, _Mapping]] = ..., plan_uri: _Optional[str] = ...) -> None: ...

class CreatePlanSuccess(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreatePlanToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: CreatePlanArgs
    result: CreatePlanResult
    def __init__(self, args: _Optional[_Union[CreatePlanArgs, _Mapping]] = ..., result: _Optional[_Union[CreatePlanResult, _Mapping]] = ...) -> None: ...

class CursorPosition(_message.Message):
    __slots__ = ("line", "column")
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    line: int
    column: int
    def __init__(self, line: _Optional[int] = ..., column: _Optional[int] = ...) -> None: ...

class CursorRange(_message.Message):
    __slots__ = ("start_position", "end_position")
    START_POSITION_FIELD_NUMBER: _ClassVar[int]
    END_POSITION_FIELD_NUMBER: _ClassVar[int]
    start_position: CursorPosition
    end_position: CursorPosition
    def __init__(self, start_position: _Optional[_Union[CursorPosition, _Mapping]] = ..., end_position: _Optional[_Union[CursorPosition, _Mapping]] = ...) -> None: ...

class CursorRule(_message.Message):
    __slots__ = ("full_path", "content", "type", "source", "git_remote_origin", "parse_error", "environments", "disabled_environments", "plugin", "marketplace", "plugin_id", "marketplace_id", "scoped_to", "frontmatter", "is_required")
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    GIT_REMOTE_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PARSE_ERROR_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    DISABLED_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPED_TO_FIELD_NUMBER: _ClassVar[int]
    FRONTMATTER_FIELD_NUMBER: _ClassVar[int]
    IS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    full_path: str
    content: str
    type: CursorRuleType
    source: CursorRuleSource
    git_remote_origin: str
    parse_error: str
    environments: _containers.RepeatedScalarFieldContainer[str]
    disabled_environments: _containers.RepeatedScalarFieldContainer[str]
    plugin: str
    marketplace: str
    plugin_id: str
    marketplace_id: str
    scoped_to: _containers.RepeatedScalarFieldContainer[str]
    frontmatter: str
    is_required: bool
    def __init__(self, full_path: _Optional[str] = ..., content: _Optional[str] = ..., type: _Optional[_Union[CursorRuleType, _Mapping]] = ..., source: _Optional[_Union[CursorRuleSource, str]] = ..., git_remote_origin: _Optional[str] = ..., parse_error: _Optional[str] = ..., environments: _Optional[_Iterable[str]] = ..., disabled_environments: _Optional[_Iterable[str]] = ..., plugin: _Optional[str] = ..., marketplace: _Optional[str] = ..., plugin_id: _Optional[str] = ..., marketplace_id: _Optional[str] = ..., scoped_to: _Optional[_Iterable[str]] = ..., frontmatter: _Optional[str] = ..., is_required: _Optional[bool] = ...) -> None: ...

class CursorRuleType(_message.Message):
    __slots__ = ("file_globbed", "agent_fetched", "manually_attached")
    GLOBAL_FIELD_NUMBER: _ClassVar[int]
    FILE_GLOBBED_FIELD_NUMBER: _ClassVar[int]
    AGENT_FETCHED_FIELD_NUMBER: _ClassVar[int]
    MANUALLY_ATTACHED_FIELD_NUMBER: _ClassVar[int]
    file_globbed: CursorRuleTypeFileGlobs
    agent_fetched: CursorRuleTypeAgentFetched
    manually_attached: CursorRuleTypeManuallyAttached
    def __init__(self, file_globbed: _Optional[_Union[CursorRuleTypeFileGlobs, _Mapping]] = ..., agent_fetched: _Optional[_Union[CursorRuleTypeAgentFetched, _Mapping]] = ..., manually_attached: _Optional[_Union[CursorRuleTypeManuallyAttached, _Mapping]] = ..., **kwargs) -> None: ...

class CursorRuleTypeAgentFetched(_message.Message):
    __slots__ = ("description",)
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    description: str
    def __init__(self, description: _Optional[str] = ...) -> None: ...

class CursorRuleTypeFileGlobs(_message.Message):
    __slots__ = ("globs",)
    GLOBS_FIELD_NUMBER: _ClassVar[int]
    globs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, globs: _Optional[_Iterable[str]] = ...) -> None: ...

class CursorRuleTypeGlobal(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CursorRuleTypeManuallyAttached(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CustomSubagent(_message.Message):
    __slots__ = ("full_path", "name", "description", "tools", "model", "prompt", "permission_mode", "is_background", "plugin", "marketplace", "plugin_id", "marketplace_id", "force_default_model", "source")
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_MODE_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_ID_FIELD_NUMBER: _ClassVar[int]
    FORCE_DEFAULT_MODEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    full_path: str
    name: str
    description: str
    tools: _containers.RepeatedScalarFieldContainer[str]
    model: str
    prompt: str
    permission_mode: CustomSubagentPermissionMode
    is_background: bool
    plugin: str
    marketplace: str
    plugin_id: str
    marketplace_id: str
    force_default_model: bool
    source: str
    def __init__(self, full_path: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., tools: _Optional[_Iterable[str]] = ..., model: _Optional[str] = ..., prompt: _Optional[str] = ..., permission_mode: _Optional[_Union[CustomSubagentPermissionMode, str]] = ..., is_background: _Optional[bool] = ..., plugin: _Optional[str] = ..., marketplace: _Optional[str] = ..., plugin_id: _Optional[str] = ..., marketplace_id: _Optional[str] = ..., force_default_model: _Optional[bool] = ..., source: _Optional[str] = ...) -> None: ...

class CustomModeExitIntent(_message.Message):
    __slots__ = ("next_mode", "exited_mode")
    NEXT_MODE_FIELD_NUMBER: _ClassVar[int]
    EXITED_MODE_FIELD_NUMBER: _ClassVar[int]
    next_mode: AgentMode
    exited_mode: SubmittedExitedCustomMode
    def __init__(self, next_mode: _Optional[_Union[AgentMode, str]] = ..., exited_mode: _Optional[_Union[SubmittedExitedCustomMode, _Mapping]] = ...) -> None: ...

class CustomModeIntent(_message.Message):
    __slots__ = ("enter", "exit")
    ENTER_FIELD_NUMBER: _ClassVar[int]
    EXIT_FIELD_NUMBER: _ClassVar[int]
    enter: SubmittedCustomMode
    exit: CustomModeExitIntent
    def __init__(self, enter: _Optional[_Union[SubmittedCustomMode, _Mapping]] = ..., exit: _Optional[_Union[CustomModeExitIntent, _Mapping]] = ...) -> None: ...

class DeleteArgs(_message.Message):
    __slots__ = ("path", "tool_call_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class DeleteError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class DeleteFileBusy(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DeleteFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DeleteNotFile(_message.Message):
    __slots__ = ("path", "actual_type")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ACTUAL_TYPE_FIELD_NUMBER: _ClassVar[int]
    path: str
    actual_type: str
    def __init__(self, path: _Optional[str] = ..., actual_type: _Optional[str] = ...) -> None: ...

class DeletePermissionDenied(_message.Message):
    __slots__ = ("path", "client_visible_error", "is_readonly")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CLIENT_VISIBLE_ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    client_visible_error: str
    is_readonly: bool
    def __init__(self, path: _Optional[str] = ..., client_visible_error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class DeleteRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DeleteResult(_message.Message):
    __slots__ = ("success", "file_not_found", "not_file", "permission_denied", "file_busy", "rejected", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    NOT_FILE_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    FILE_BUSY_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: DeleteSuccess
    file_not_found: DeleteFileNotFound
    not_file: DeleteNotFile
    permission_denied: DeletePermissionDenied
    file_busy: DeleteFileBusy
    rejected: DeleteRejected
    error: DeleteError
    def __init__(self, success: _Optional[_Union[DeleteSuccess, _Mapping]] = ..., file_not_found: _Optional[_Union[DeleteFileNotFound, _Mapping]] = ..., not_file: _Optional[_Union[DeleteNotFile, _Mapping]] = ..., permission_denied: _Optional[_Union[DeletePermissionDenied, _Mapping]] = ..., file_busy: _Optional[_Union[DeleteFileBusy, _Mapping]] = ..., rejected: _Optional[_Union[DeleteRejected, _Mapping]] = ..., error: _Optional[_Union[DeleteError, _Mapping]] = ...) -> None: ...

class DeleteSuccess(_message.Message):
    __slots__ = ("path", "deleted_file", "file_size", "prev_content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DELETED_FILE_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PREV_CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    deleted_file: str
    file_size: int
    prev_content: str
    def __init__(self, path: _Optional[str] = ..., deleted_file: _Optional[str] = ..., file_size: _Optional[int] = ..., prev_content: _Optional[str] = ...) -> None: ...

class DeleteToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: DeleteArgs
    result: DeleteResult
    def __init__(self, args: _Optional[_Union[DeleteArgs, _Mapping]] = ..., result: _Optional[_Union[DeleteResult, _Mapping]] = ...) -> None: ...

class DetailedLine(_message.Message):
    __slots__ = ("text", "line_number", "is_signature")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    IS_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    text: str
    line_number: float
    is_signature: bool
    def __init__(self, text: _Optional[str] = ..., line_number: _Optional[float] = ..., is_signature: _Optional[bool] = ...) -> None: ...

class Diagnostic(_message.Message):
    __slots__ = ("severity", "range", "message", "source", "code", "is_stale")
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    IS_STALE_FIELD_NUMBER: _ClassVar[int]
    severity: DiagnosticSeverity
    range: Range
    message: str
    source: str
    code: str
    is_stale: bool
    def __init__(self, severity: _Optional[_Union[DiagnosticSeverity, str]] = ..., range: _Optional[_Union[Range, _Mapping]] = ..., message: _Optional[str] = ..., source: _Optional[str] = ..., code: _Optional[str] = ..., is_stale: _Optional[bool] = ...) -> None: ...

class DiagnosticItem(_message.Message):
    __slots__ = ("severity", "range", "message", "source", "code", "is_stale")
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    IS_STALE_FIELD_NUMBER: _ClassVar[int]
    severity: DiagnosticSeverity
    range: DiagnosticRange
    message: str
    source: str
    code: str
    is_stale: bool
    def __init__(self, severity: _Optional[_Union[DiagnosticSeverity, str]] = ..., range: _Optional[_Union[DiagnosticRange, _Mapping]] = ..., message: _Optional[str] = ..., source: _Optional[str] = ..., code: _Optional[str] = ..., is_stale: _Optional[bool] = ...) -> None: ...

class DiagnosticRange(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: Position
    end: Position
    def __init__(self, start: _Optional[_Union[Position, _Mapping]] = ..., end: _Optional[_Union[Position, _Mapping]] = ...) -> None: ...

class DiagnosticsArgs(_message.Message):
    __slots__ = ("path", "tool_call_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class DiagnosticsError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class DiagnosticsFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DiagnosticsPermissionDenied(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class DiagnosticsRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DiagnosticsResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "file_not_found", "permission_denied")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    success: DiagnosticsSuccess
    error: DiagnosticsError
    rejected: DiagnosticsRejected
    file_not_found: DiagnosticsFileNotFound
    permission_denied: DiagnosticsPermissionDenied
    def __init__(self, success: _Optional[_Union[DiagnosticsSuccess, _Mapping]] = ..., error: _Optional[_Union[DiagnosticsError, _Mapping]] = ..., rejected: _Optional[_Union[DiagnosticsRejected, _Mapping]] = ..., file_not_found: _Optional[_Union[DiagnosticsFileNotFound, _Mapping]] = ..., permission_denied: _Optional[_Union[DiagnosticsPermissionDenied, _Mapping]] = ...) -> None: ...

class DiagnosticsSuccess(_message.Message):
    __slots__ = ("path", "diagnostics", "total_diagnostics")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    path: str
    diagnostics: _containers.RepeatedCompositeFieldContainer[Diagnostic]
    total_diagnostics: int
    def __init__(self, path: _Optional[str] = ..., diagnostics: _Optional[_Iterable[_Union[Diagnostic, _Mapping]]] = ..., total_diagnostics: _Optional[int] = ...) -> None: ...

class EditArgs(_message.Message):
    __slots__ = ("path", "stream_content")
    PATH_FIELD_NUMBER: _ClassVar[int]
    STREAM_CONTENT_FIELD_NUMBER: _ClassVar[int]
    path: str
    stream_content: str
    def __init__(self, path: _Optional[str] = ..., stream_content: _Optional[str] = ...) -> None: ...

class EditError(_message.Message):
    __slots__ = ("path", "error", "model_visible_error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MODEL_VISIBLE_ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    model_visible_error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ..., model_visible_error: _Optional[str] = ...) -> None: ...

class EditFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class EditReadPermissionDenied(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class EditRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class EditResult(_message.Message):
    __slots__ = ("success", "file_not_found", "read_permission_denied", "write_permission_denied", "rejected", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    READ_PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    WRITE_PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: EditSuccess
    file_not_found: EditFileNotFound
    read_permission_denied: EditReadPermissionDenied
    write_permission_denied: EditWritePermissionDenied
    rejected: EditRejected
    error: EditError
    def __init__(self, success: _Optional[_Union[EditSuccess, _Mapping]] = ..., file_not_found: _Optional[_Union[EditFileNotFound, _Mapping]] = ..., read_permission_denied: _Optional[_Union[EditReadPermissionDenied, _Mapping]] = ..., write_permission_denied: _Optional[_Union[EditWritePermissionDenied, _Mapping]] = ..., rejected: _Optional[_Union[EditRejected, _Mapping]] = ..., error: _Optional[_Union[EditError, _Mapping]] = ...) -> None: ...

class EditSuccess(_message.Message):
    __slots__ = ("path", "lines_added", "lines_removed", "diff_string", "before_full_file_content", "after_full_file_content", "message")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINES_ADDED_FIELD_NUMBER: _ClassVar[int]
    LINES_REMOVED_FIELD_NUMBER: _ClassVar[int]
    DIFF_STRING_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FULL_FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    AFTER_FULL_FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    path: str
    lines_added: int
    lines_removed: int
    diff_string: str
    before_full_file_content: str
    after_full_file_content: str
    message: str
    def __init__(self, path: _Optional[str] = ..., lines_added: _Optional[int] = ..., lines_removed: _Optional[int] = ..., diff_string: _Optional[str] = ..., before_full_file_content: _Optional[str] = ..., after_full_file_content: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class EditToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: EditArgs
    result: EditResult
    def __init__(self, args: _Optional[_Union[EditArgs, _Mapping]] = ..., result: _Optional[_Union[EditResult, _Mapping]] = ...) -> None: ...

class EditToolCallDelta(_message.Message):
    __slots__ = ("stream_content_delta",)
    STREAM_CONTENT_DELTA_FIELD_NUMBER: _ClassVar[int]
    stream_content_delta: str
    def __init__(self, stream_content_delta: _Optional[str] = ...) -> None: ...

class EditWritePermissionDenied(_message.Message):
    __slots__ = ("path", "error", "is_readonly")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    is_readonly: bool
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class ExecClientHeartbeat(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ExecClientStreamClose(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ExecClientThrow(_message.Message):
    __slots__ = ("id", "error", "stack_trace", "error_code")
    ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    STACK_TRACE_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    id: int
    error: str
    stack_trace: str
    error_code: str
    def __init__(self, id: _Optional[int] = ..., error: _Optional[str] = ..., stack_trace: _Optional[str] = ..., error_code: _Optional[str] = ...) -> None: ...

class ExecServerAbort(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class ExecutePlanAction(_message.Message):
    __slots__ = ("request_context", "plan", "plan_file_uri", "plan_file_content", "execution_mode", "kickoff_message_id", "plan_id", "plan_file_path")
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    PLAN_FILE_URI_FIELD_NUMBER: _ClassVar[int]
    PLAN_FILE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_MODE_FIELD_NUMBER: _ClassVar[int]
    KICKOFF_MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    plan: ConversationPlan
    plan_file_uri: str
    plan_file_content: str
    execution_mode: AgentMode
    kickoff_message_id: str
    plan_id: str
    plan_file_path: str
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., plan: _Optional[_Union[ConversationPlan, _Mapping]] = ..., plan_file_uri: _Optional[str] = ..., plan_file_content: _Optional[str] = ..., execution_mode: _Optional[_Union[AgentMode, str]] = ..., kickoff_message_id: _Optional[str] = ..., plan_id: _Optional[str] = ..., plan_file_path: _Optional[str] = ...) -> None: ...

class ExecutePlanInfo(_message.Message):
    __slots__ = ("plan_id", "plan_title")
    PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_TITLE_FIELD_NUMBER: _ClassVar[int]
    plan_id: str
    plan_title: str
    def __init__(self, plan_id: _Optional[str] = ..., plan_title: _Optional[str] = ...) -> None: ...

class ExtraContextEntry(_message.Message):
    __slots__ = ("data", "blob_id")
    DATA_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    data: str
    blob_id: bytes
    def __init__(self, data: _Optional[str] = ..., blob_id: _Optional[bytes] = ...) -> None: ...

class FeedbackRequestCategory(_message.Message):
    __slots__ = ("id", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class FeedbackRequestCategoryGroup(_message.Message):
    __slots__ = ("id", "prompt", "categories")
    ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    prompt: str
    categories: _containers.RepeatedCompositeFieldContainer[FeedbackRequestCategory]
    def __init__(self, id: _Optional[str] = ..., prompt: _Optional[str] = ..., categories: _Optional[_Iterable[_Union[FeedbackRequestCategory, _Mapping]]] = ...) -> None: ...

class FeedbackRequestUpdate(_message.Message):
    __slots__ = ("request_id", "canonical_model_name", "categories", "category_groups", "show_form_immediately", "title", "negative_title", "comment_placeholder")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_GROUPS_FIELD_NUMBER: _ClassVar[int]
    SHOW_FORM_IMMEDIATELY_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    NEGATIVE_TITLE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_PLACEHOLDER_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    canonical_model_name: str
    categories: _containers.RepeatedCompositeFieldContainer[FeedbackRequestCategory]
    category_groups: _containers.RepeatedCompositeFieldContainer[FeedbackRequestCategoryGroup]
    show_form_immediately: bool
    title: str
    negative_title: str
    comment_placeholder: str
    def __init__(self, request_id: _Optional[str] = ..., canonical_model_name: _Optional[str] = ..., categories: _Optional[_Iterable[_Union[FeedbackRequestCategory, _Mapping]]] = ..., category_groups: _Optional[_Iterable[_Union[FeedbackRequestCategoryGroup, _Mapping]]] = ..., show_form_immediately: _Optional[bool] = ..., title: _Optional[str] = ..., negative_title: _Optional[str] = ..., comment_placeholder: _Optional[str] = ...) -> None: ...

class FetchArgs(_message.Message):
    __slots__ = ("url", "tool_call_id")
    URL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    url: str
    tool_call_id: str
    def __init__(self, url: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class FetchError(_message.Message):
    __slots__ = ("url", "error")
    URL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    url: str
    error: str
    def __init__(self, url: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class FetchResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: FetchSuccess
    error: FetchError
    def __init__(self, success: _Optional[_Union[FetchSuccess, _Mapping]] = ..., error: _Optional[_Union[FetchError, _Mapping]] = ...) -> None: ...

class FetchSuccess(_message.Message):
    __slots__ = ("url", "content", "status_code", "content_type")
    URL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_CODE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    url: str
    content: str
    status_code: int
    content_type: str
    def __init__(self, url: _Optional[str] = ..., content: _Optional[str] = ..., status_code: _Optional[int] = ..., content_type: _Optional[str] = ...) -> None: ...

class FetchToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: FetchArgs
    result: FetchResult
    def __init__(self, args: _Optional[_Union[FetchArgs, _Mapping]] = ..., result: _Optional[_Union[FetchResult, _Mapping]] = ...) -> None: ...

class FileDiagnostics(_message.Message):
    __slots__ = ("path", "diagnostics", "diagnostics_count")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_COUNT_FIELD_NUMBER: _ClassVar[int]
    path: str
    diagnostics: _containers.RepeatedCompositeFieldContainer[DiagnosticItem]
    diagnostics_count: int
    def __init__(self, path: _Optional[str] = ..., diagnostics: _Optional[_Iterable[_Union[DiagnosticItem, _Mapping]]] = ..., diagnostics_count: _Optional[int] = ...) -> None: ...

class FileGit(_message.Message):
    __slots__ = ("commits",)
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    commits: _containers.RepeatedCompositeFieldContainer[GitCommit]
    def __init__(self, commits: _Optional[_Iterable[_Union[GitCommit, _Mapping]]] = ...) -> None: ...

class FileStateStructure(_message.Message):
    __slots__ = ("content", "initial_content")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: bytes
    initial_content: bytes
    def __init__(self, content: _Optional[bytes] = ..., initial_content: _Optional[bytes] = ...) -> None: ...

class GetBlobArgs(_message.Message):
    __slots__ = ("blob_id",)
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    def __init__(self, blob_id: _Optional[bytes] = ...) -> None: ...

class GetBlobResult(_message.Message):
    __slots__ = ("blob_data", "error")
    BLOB_DATA_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    blob_data: bytes
    error: Error
    def __init__(self, blob_data: _Optional[bytes] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class GitCommit(_message.Message):
    __slots__ = ("commit", "author", "date", "message")
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    commit: str
    author: str
    date: str
    message: str
    def __init__(self, commit: _Optional[str] = ..., author: _Optional[str] = ..., date: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class GitRepoInfo(_message.Message):
    __slots__ = ("path", "status", "branch_name", "remote_url", "previous_branch_is_ancestor", "is_origin_backed")
    PATH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    REMOTE_URL_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_BRANCH_IS_ANCESTOR_FIELD_NUMBER: _ClassVar[int]
    IS_ORIGIN_BACKED_FIELD_NUMBER: _ClassVar[int]
    path: str
    status: str
    branch_name: str
    remote_url: str
    previous_branch_is_ancestor: bool
    is_origin_backed: bool
    def __init__(self, path: _Optional[str] = ..., status: _Optional[str] = ..., branch_name: _Optional[str] = ..., remote_url: _Optional[str] = ..., previous_branch_is_ancestor: _Optional[bool] = ..., is_origin_backed: _Optional[bool] = ...) -> None: ...

class GlobToolArgs(_message.Message):
    __slots__ = ("target_directory", "glob_pattern")
    TARGET_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    GLOB_PATTERN_FIELD_NUMBER: _ClassVar[int]
    target_directory: str
    glob_pattern: str
    def __init__(self, target_directory: _Optional[str] = ..., glob_pattern: _Optional[str] = ...) -> None: ...

class GlobToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: GlobToolArgs
    result: GlobToolResult
    def __init__(self, args: _Optional[_Union[GlobToolArgs, _Mapping]] = ..., result: _Optional[_Union[GlobToolResult, _Mapping]] = ...) -> None: ...

class GlobToolError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class GlobToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: GlobToolSuccess
    error: GlobToolError
    def __init__(self, success: _Optional[_Union[GlobToolSuccess, _Mapping]] = ..., error: _Optional[_Union[GlobToolError, _Mapping]] = ...) -> None: ...

class GlobToolSuccess(_message.Message):
    __slots__ = ("pattern", "path", "files", "total_files", "client_truncated", "ripgrep_truncated")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    files: _containers.RepeatedScalarFieldContainer[str]
    total_files: int
    client_truncated: bool
    ripgrep_truncated: bool
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., files: _Optional[_Iterable[str]] = ..., total_files: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ...) -> None: ...

class GrepArgs(_message.Message):
    __slots__ = ("pattern", "path", "glob", "output_mode", "context_before", "context_after", "context", "case_insensitive", "type", "head_limit", "multiline", "sort", "sort_ascending", "tool_call_id", "sandbox_policy", "offset")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    GLOB_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_AFTER_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CASE_INSENSITIVE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MULTILINE_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SORT_ASCENDING_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    glob: str
    output_mode: str
    context_before: int
    context_after: int
    context: int
    case_insensitive: bool
    type: str
    head_limit: int
    multiline: bool
    sort: str
    sort_ascending: bool
    tool_call_id: str
    sandbox_policy: SandboxPolicy
    offset: int
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., glob: _Optional[str] = ..., output_mode: _Optional[str] = ..., context_before: _Optional[int] = ..., context_after: _Optional[int] = ..., context: _Optional[int] = ..., case_insensitive: _Optional[bool] = ..., type: _Optional[str] = ..., head_limit: _Optional[int] = ..., multiline: _Optional[bool] = ..., sort: _Optional[str] = ..., sort_ascending: _Optional[bool] = ..., tool_call_id: _Optional[str] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., offset: _Optional[int] = ...) -> None: ...

class GrepContentMatch(_message.Message):
    __slots__ = ("line_number", "content", "content_truncated", "is_context_line")
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    IS_CONTEXT_LINE_FIELD_NUMBER: _ClassVar[int]
    line_number: int
    content: str
    content_truncated: bool
    is_context_line: bool
    def __init__(self, line_number: _Optional[int] = ..., content: _Optional[str] = ..., content_truncated: _Optional[bool] = ..., is_context_line: _Optional[bool] = ...) -> None: ...

class GrepContentResult(_message.Message):
    __slots__ = ("matches", "total_lines", "total_matched_lines", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MATCHED_LINES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[GrepFileMatch]
    total_lines: int
    total_matched_lines: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, matches: _Optional[_Iterable[_Union[GrepFileMatch, _Mapping]]] = ..., total_lines: _Optional[int] = ..., total_matched_lines: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepCountResult(_message.Message):
    __slots__ = ("counts", "total_files", "total_matches", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MATCHES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[GrepFileCount]
    total_files: int
    total_matches: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, counts: _Optional[_Iterable[_Union[GrepFileCount, _Mapping]]] = ..., total_files: _Optional[int] = ..., total_matches: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class GrepFileCount(_message.Message):
    __slots__ = ("file", "count")
    FILE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    file: str
    count: int
    def __init__(self, file: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class GrepFileMatch(_message.Message):
    __slots__ = ("file", "matches")
    FILE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    file: str
    matches: _containers.RepeatedCompositeFieldContainer[GrepContentMatch]
    def __init__(self, file: _Optional[str] = ..., matches: _Optional[_Iterable[_Union[GrepContentMatch, _Mapping]]] = ...) -> None: ...

class GrepFilesResult(_message.Message):
    __slots__ = ("files", "total_files", "client_truncated", "ripgrep_truncated", "head_limit_applied", "offset_applied")
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    RIPGREP_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    HEAD_LIMIT_APPLIED_FIELD_NUMBER: _ClassVar[int]
    OFFSET_APPLIED_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedScalarFieldContainer[str]
    total_files: int
    client_truncated: bool
    ripgrep_truncated: bool
    head_limit_applied: int
    offset_applied: int
    def __init__(self, files: _Optional[_Iterable[str]] = ..., total_files: _Optional[int] = ..., client_truncated: _Optional[bool] = ..., ripgrep_truncated: _Optional[bool] = ..., head_limit_applied: _Optional[int] = ..., offset_applied: _Optional[int] = ...) -> None: ...

class GrepResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: GrepSuccess
    error: GrepError
    def __init__(self, success: _Optional[_Union[GrepSuccess, _Mapping]] = ..., error: _Optional[_Union[GrepError, _Mapping]] = ...) -> None: ...

class GrepSuccess(_message.Message):
    __slots__ = ("pattern", "path", "output_mode", "workspace_results", "active_editor_result")
    class WorkspaceResultsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: GrepUnionResult
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[GrepUnionResult, _Mapping]] = ...) -> None: ...
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_MODE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_RESULTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_EDITOR_RESULT_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    path: str
    output_mode: str
    workspace_results: _containers.MessageMap[str, GrepUnionResult]
    active_editor_result: GrepUnionResult
    def __init__(self, pattern: _Optional[str] = ..., path: _Optional[str] = ..., output_mode: _Optional[str] = ..., workspace_results: _Optional[_Mapping[str, GrepUnionResult]] = ..., active_editor_result: _Optional[_Union[GrepUnionResult, _Mapping]] = ...) -> None: ...

class GrepToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: GrepArgs
    result: GrepResult
    def __init__(self, args: _Optional[_Union[GrepArgs, _Mapping]] = ..., result: _Optional[_Union[GrepResult, _Mapping]] = ...) -> None: ...

class GrepUnionResult(_message.Message):
    __slots__ = ("count", "files", "content")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    count: GrepCountResult
    files: GrepFilesResult
    content: GrepContentResult
    def __init__(self, count: _Optional[_Union[GrepCountResult, _Mapping]] = ..., files: _Optional[_Union[GrepFilesResult, _Mapping]] = ..., content: _Optional[_Union[GrepContentResult, _Mapping]] = ...) -> None: ...

class GrokBotNudgeUpdate(_message.Message):
    __slots__ = ("job", "description", "show_number")
    JOB_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SHOW_NUMBER_FIELD_NUMBER: _ClassVar[int]
    job: str
    description: str
    show_number: int
    def __init__(self, job: _Optional[str] = ..., description: _Optional[str] = ..., show_number: _Optional[int] = ...) -> None: ...

class HeartbeatUpdate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HookAdditionalContext(_message.Message):
    __slots__ = ("hook_event_name", "content")
    HOOK_EVENT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    hook_event_name: str
    content: str
    def __init__(self, hook_event_name: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class InterruptedPendingToolCallResolution(_message.Message):
    __slots__ = ("tool_call_id", "shell_result")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SHELL_RESULT_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    shell_result: ShellResult
    def __init__(self, tool_call_id: _Optional[str] = ..., shell_result: _Optional[_Union[ShellResult, _Mapping]] = ...) -> None: ...

class InterruptedPendingToolCallResolutions(_message.Message):
    __slots__ = ("resolutions",)
    RESOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    resolutions: _containers.RepeatedCompositeFieldContainer[InterruptedPendingToolCallResolution]
    def __init__(self, resolutions: _Optional[_Iterable[_Union[InterruptedPendingToolCallResolution, _Mapping]]] = ...) -> None: ...

class ListMcpResourcesError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ListMcpResourcesExecArgs(_message.Message):
    __slots__ = ("server",)
    SERVER_FIELD_NUMBER: _ClassVar[int]
    server: str
    def __init__(self, server: _Optional[str] = ...) -> None: ...

class ListMcpResourcesExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    class McpResource(_message.Message):
        __slots__ = ("uri", "name", "description", "mime_type", "server", "annotations")
        class AnnotationsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        URI_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
        SERVER_FIELD_NUMBER: _ClassVar[int]
        ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
        uri: str
        name: str
        description: str
        mime_type: str
        server: str
        annotations: _containers.ScalarMap[str, str]
        def __init__(self, uri: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., mime_type: _Optional[str] = ..., server: _Optional[str] = ..., annotations: _Optional[_Mapping[str, str]] = ...) -> None: ...
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: ListMcpResourcesSuccess
    error: ListMcpResourcesError
    rejected: ListMcpResourcesRejected
    def __init__(self, success: _Optional[_Union[ListMcpResourcesSuccess, _Mapping]] = ..., error: _Optional[_Union[ListMcpResourcesError, _Mapping]] = ..., rejected: _Optional[_Union[ListMcpResourcesRejected, _Mapping]] = ...) -> None: ...

class ListMcpResourcesRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class ListMcpResourcesSuccess(_message.Message):
    __slots__ = ("resources",)
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    resources: _containers.RepeatedCompositeFieldContainer[ListMcpResourcesExecResult.McpResource]
    def __init__(self, resources: _Optional[_Iterable[_Union[ListMcpResourcesExecResult.McpResource, _Mapping]]] = ...) -> None: ...

class ListMcpResourcesToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ListMcpResourcesExecArgs
    result: ListMcpResourcesExecResult
    def __init__(self, args: _Optional[_Union[ListMcpResourcesExecArgs, _Mapping]] = ..., result: _Optional[_Union[ListMcpResourcesExecResult, _Mapping]] = ...) -> None: ...

class LsArgs(_message.Message):
    __slots__ = ("path", "ignore", "tool_call_id", "sandbox_policy", "timeout_ms")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IGNORE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    path: str
    ignore: _containers.RepeatedScalarFieldContainer[str]
    tool_call_id: str
    sandbox_policy: SandboxPolicy
    timeout_ms: int
    def __init__(self, path: _Optional[str] = ..., ignore: _Optional[_Iterable[str]] = ..., tool_call_id: _Optional[str] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class LsDirectoryTreeNode(_message.Message):
    __slots__ = ("abs_path", "children_dirs", "children_files", "children_were_processed", "full_subtree_extension_counts", "num_files")
    class File(_message.Message):
        __slots__ = ("name", "terminal_metadata")
        NAME_FIELD_NUMBER: _ClassVar[int]
        TERMINAL_METADATA_FIELD_NUMBER: _ClassVar[int]
        name: str
        terminal_metadata: TerminalMetadata
        def __init__(self, name: _Optional[str] = ..., terminal_metadata: _Optional[_Union[TerminalMetadata, _Mapping]] = ...) -> None: ...
    class FullSubtreeExtensionCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ABS_PATH_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_DIRS_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FILES_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_WERE_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    FULL_SUBTREE_EXTENSION_COUNTS_FIELD_NUMBER: _ClassVar[int]
    NUM_FILES_FIELD_NUMBER: _ClassVar[int]
    abs_path: str
    children_dirs: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode]
    children_files: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode.File]
    children_were_processed: bool
    full_subtree_extension_counts: _containers.ScalarMap[str, int]
    num_files: int
    def __init__(self, abs_path: _Optional[str] = ..., children_dirs: _Optional[_Iterable[_Union[LsDirectoryTreeNode, _Mapping]]] = ..., children_files: _Optional[_Iterable[_Union[LsDirectoryTreeNode.File, _Mapping]]] = ..., children_were_processed: _Optional[bool] = ..., full_subtree_extension_counts: _Optional[_Mapping[str, int]] = ..., num_files: _Optional[int] = ...) -> None: ...

class LsError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class LsRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class LsResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "timeout")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    success: LsSuccess
    error: LsError
    rejected: LsRejected
    timeout: LsTimeout
    def __init__(self, success: _Optional[_Union[LsSuccess, _Mapping]] = ..., error: _Optional[_Union[LsError, _Mapping]] = ..., rejected: _Optional[_Union[LsRejected, _Mapping]] = ..., timeout: _Optional[_Union[LsTimeout, _Mapping]] = ...) -> None: ...

class LsSuccess(_message.Message):
    __slots__ = ("directory_tree_root",)
    DIRECTORY_TREE_ROOT_FIELD_NUMBER: _ClassVar[int]
    directory_tree_root: LsDirectoryTreeNode
    def __init__(self, directory_tree_root: _Optional[_Union[LsDirectoryTreeNode, _Mapping]] = ...) -> None: ...

class LsTimeout(_message.Message):
    __slots__ = ("directory_tree_root",)
    DIRECTORY_TREE_ROOT_FIELD_NUMBER: _ClassVar[int]
    directory_tree_root: LsDirectoryTreeNode
    def __init__(self, directory_tree_root: _Optional[_Union[LsDirectoryTreeNode, _Mapping]] = ...) -> None: ...

class LsToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: LsArgs
    result: LsResult
    def __init__(self, args: _Optional[_Union[LsArgs, _Mapping]] = ..., result: _Optional[_Union[LsResult, _Mapping]] = ...) -> None: ...

class McpApproved(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class McpArgs(_message.Message):
    __slots__ = ("name", "args", "tool_call_id", "provider_identifier", "tool_name", "smart_mode_approval", "smart_mode_approval_only", "skip_approval", "server_identifier")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.Value
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_ONLY_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SERVER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    name: str
    args: _containers.MessageMap[str, _struct_pb2.Value]
    tool_call_id: str
    provider_identifier: str
    tool_name: str
    smart_mode_approval: SmartModeApproval
    smart_mode_approval_only: bool
    skip_approval: bool
    server_identifier: str
    def __init__(self, name: _Optional[str] = ..., args: _Optional[_Mapping[str, _struct_pb2.Value]] = ..., tool_call_id: _Optional[str] = ..., provider_identifier: _Optional[str] = ..., tool_name: _Optional[str] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., smart_mode_approval_only: _Optional[bool] = ..., skip_approval: _Optional[bool] = ..., server_identifier: _Optional[str] = ...) -> None: ...

class McpDescriptor(_message.Message):
    __slots__ = ("server_name", "server_identifier", "folder_path", "server_use_instructions", "tools", "plugin", "marketplace", "plugin_db_id", "marketplace_id")
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    SERVER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    FOLDER_PATH_FIELD_NUMBER: _ClassVar[int]
    SERVER_USE_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_DB_ID_FIELD_NUMBER: _ClassVar[int]
    MARKETPLACE_ID_FIELD_NUMBER: _ClassVar[int]
    server_name: str
    server_identifier: str
    folder_path: str
    server_use_instructions: str
    tools: _containers.RepeatedCompositeFieldContainer[McpToolDescriptor]
    plugin: str
    marketplace: str
    plugin_db_id: str
    marketplace_id: str
    def __init__(self, server_name: _Optional[str] = ..., server_identifier: _Optional[str] = ..., folder_path: _Optional[str] = ..., server_use_instructions: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[McpToolDescriptor, _Mapping]]] = ..., plugin: _Optional[str] = ..., marketplace: _Optional[str] = ..., plugin_db_id: _Optional[str] = ..., marketplace_id: _Optional[str] = ...) -> None: ...

class McpError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class McpFileSystemOptions(_message.Message):
    __slots__ = ("enabled", "workspace_project_dir", "mcp_descriptors")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_PROJECT_DIR_FIELD_NUMBER: _ClassVar[int]
    MCP_DESCRIPTORS_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    workspace_project_dir: str
    mcp_descriptors: _containers.RepeatedCompositeFieldContainer[McpDescriptor]
    def __init__(self, enabled: _Optional[bool] = ..., workspace_project_dir: _Optional[str] = ..., mcp_descriptors: _Optional[_Iterable[_Union[McpDescriptor, _Mapping]]] = ...) -> None: ...

class McpImageContent(_message.Message):
    __slots__ = ("data", "mime_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    mime_type: str
    def __init__(self, data: _Optional[bytes] = ..., mime_type: _Optional[str] = ...) -> None: ...

class McpInstructions(_message.Message):
    __slots__ = ("server_name", "instructions", "server_identifier")
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    SERVER_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    server_name: str
    instructions: str
    server_identifier: str
    def __init__(self, server_name: _Optional[str] = ..., instructions: _Optional[str] = ..., server_identifier: _Optional[str] = ...) -> None: ...

class McpMetaToolOptions(_message.Message):
    __slots__ = ("enabled", "mcp_descriptors")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MCP_DESCRIPTORS_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    mcp_descriptors: _containers.RepeatedCompositeFieldContainer[McpDescriptor]
    def __init__(self, enabled: _Optional[bool] = ..., mcp_descriptors: _Optional[_Iterable[_Union[McpDescriptor, _Mapping]]] = ...) -> None: ...

class McpPermissionDenied(_message.Message):
    __slots__ = ("error", "is_readonly")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    error: str
    is_readonly: bool
    def __init__(self, error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class McpRejected(_message.Message):
    __slots__ = ("reason", "is_readonly")
    REASON_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    reason: str
    is_readonly: bool
    def __init__(self, reason: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class McpResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied", "tool_not_found", "server_not_found", "approved")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    TOOL_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    SERVER_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    success: McpSuccess
    error: McpError
    rejected: McpRejected
    permission_denied: McpPermissionDenied
    tool_not_found: McpToolNotFound
    server_not_found: McpServerNotFound
    approved: McpApproved
    def __init__(self, success: _Optional[_Union[McpSuccess, _Mapping]] = ..., error: _Optional[_Union[McpError, _Mapping]] = ..., rejected: _Optional[_Union[McpRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[McpPermissionDenied, _Mapping]] = ..., tool_not_found: _Optional[_Union[McpToolNotFound, _Mapping]] = ..., server_not_found: _Optional[_Union[McpServerNotFound, _Mapping]] = ..., approved: _Optional[_Union[McpApproved, _Mapping]] = ...) -> None: ...

class McpServerNotFound(_message.Message):
    __slots__ = ("name", "available_servers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_SERVERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    available_servers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., available_servers: _Optional[_Iterable[str]] = ...) -> None: ...

class McpSuccess(_message.Message):
    __slots__ = ("content", "is_error", "structured_content")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[McpToolResultContentItem]
    is_error: bool
    structured_content: _struct_pb2.Struct
    def __init__(self, content: _Optional[_Iterable[_Union[McpToolResultContentItem, _Mapping]]] = ..., is_error: _Optional[bool] = ..., structured_content: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class McpTextContent(_message.Message):
    __slots__ = ("text", "output_location")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    text: str
    output_location: OutputLocation
    def __init__(self, text: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ...) -> None: ...

class McpToolCall(_message.Message):
    __slots__ = ("args", "result", "description")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    args: McpArgs
    result: McpToolResult
    description: str
    def __init__(self, args: _Optional[_Union[McpArgs, _Mapping]] = ..., result: _Optional[_Union[McpToolResult, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class McpToolDescriptor(_message.Message):
    __slots__ = ("tool_name", "definition_path", "description", "input_schema", "input_schema_json")
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_PATH_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    tool_name: str
    definition_path: str
    description: str
    input_schema: _struct_pb2.Value
    input_schema_json: str
    def __init__(self, tool_name: _Optional[str] = ..., definition_path: _Optional[str] = ..., description: _Optional[str] = ..., input_schema: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., input_schema_json: _Optional[str] = ...) -> None: ...

class McpToolError(_message.Message):
    __slots__ = ("error", "read_tool_def_reminder")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    READ_TOOL_DEF_REMINDER_FIELD_NUMBER: _ClassVar[int]
    error: str
    read_tool_def_reminder: str
    def __init__(self, error: _Optional[str] = ..., read_tool_def_reminder: _Optional[str] = ...) -> None: ...

class McpToolNotFound(_message.Message):
    __slots__ = ("name", "available_tools")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AVAILABLE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    name: str
    available_tools: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., available_tools: _Optional[_Iterable[str]] = ...) -> None: ...

class McpToolResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "permission_denied")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    success: McpSuccess
    error: McpToolError
    rejected: McpRejected
    permission_denied: McpPermissionDenied
    def __init__(self, success: _Optional[_Union[McpSuccess, _Mapping]] = ..., error: _Optional[_Union[McpToolError, _Mapping]] = ..., rejected: _Optional[_Union[McpRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[McpPermissionDenied, _Mapping]] = ...) -> None: ...

class McpToolResultContentItem(_message.Message):
    __slots__ = ("text", "image")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    text: McpTextContent
    image: McpImageContent
    def __init__(self, text: _Optional[_Union[McpTextContent, _Mapping]] = ..., image: _Optional[_Union[McpImageContent, _Mapping]] = ...) -> None: ...

class NetworkPolicy(_message.Message):
    __slots__ = ("version", "default_action", "deny", "allow", "logging")
    class DefaultAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT_ACTION_UNSPECIFIED: _ClassVar[NetworkPolicy.DefaultAction]
        DEFAULT_ACTION_ALLOW: _ClassVar[NetworkPolicy.DefaultAction]
        DEFAULT_ACTION_DENY: _ClassVar[NetworkPolicy.DefaultAction]
    DEFAULT_ACTION_UNSPECIFIED: NetworkPolicy.DefaultAction
    DEFAULT_ACTION_ALLOW: NetworkPolicy.DefaultAction
    DEFAULT_ACTION_DENY: NetworkPolicy.DefaultAction
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ACTION_FIELD_NUMBER: _ClassVar[int]
    DENY_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    LOGGING_FIELD_NUMBER: _ClassVar[int]
    version: int
    default_action: NetworkPolicy.DefaultAction
    deny: _containers.RepeatedScalarFieldContainer[str]
    allow: _containers.RepeatedScalarFieldContainer[str]
    logging: NetworkPolicyLoggingConfig
    def __init__(self, version: _Optional[int] = ..., default_action: _Optional[_Union[NetworkPolicy.DefaultAction, str]] = ..., deny: _Optional[_Iterable[str]] = ..., allow: _Optional[_Iterable[str]] = ..., logging: _Optional[_Union[NetworkPolicyLoggingConfig, _Mapping]] = ...) -> None: ...

class NetworkPolicyLoggingConfig(_message.Message):
    __slots__ = ("decision_log_path", "log_format")
    DECISION_LOG_PATH_FIELD_NUMBER: _ClassVar[int]
    LOG_FORMAT_FIELD_NUMBER: _ClassVar[int]
    decision_log_path: str
    log_format: str
    def __init__(self, decision_log_path: _Optional[str] = ..., log_format: _Optional[str] = ...) -> None: ...

class OutputLocation(_message.Message):
    __slots__ = ("file_path", "size_bytes", "line_count")
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    LINE_COUNT_FIELD_NUMBER: _ClassVar[int]
    file_path: str
    size_bytes: int
    line_count: int
    def __init__(self, file_path: _Optional[str] = ..., size_bytes: _Optional[int] = ..., line_count: _Optional[int] = ...) -> None: ...

class PartialToolCallUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "args_text_delta", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ARGS_TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    args_text_delta: str
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., args_text_delta: _Optional[str] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class PermissionsAutoRunInstructions(_message.Message):
    __slots__ = ("allow_instructions", "block_instructions")
    ALLOW_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    BLOCK_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    allow_instructions: _containers.RepeatedScalarFieldContainer[str]
    block_instructions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, allow_instructions: _Optional[_Iterable[str]] = ..., block_instructions: _Optional[_Iterable[str]] = ...) -> None: ...

class Phase(_message.Message):
    __slots__ = ("name", "todos")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TODOS_FIELD_NUMBER: _ClassVar[int]
    name: str
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    def __init__(self, name: _Optional[str] = ..., todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ...) -> None: ...

class Position(_message.Message):
    __slots__ = ("line", "column")
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    line: int
    column: int
    def __init__(self, line: _Optional[int] = ..., column: _Optional[int] = ...) -> None: ...

class PostRequestPromptUpdate(_message.Message):
    __slots__ = ("title", "message", "button_label", "button_url")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    BUTTON_LABEL_FIELD_NUMBER: _ClassVar[int]
    BUTTON_URL_FIELD_NUMBER: _ClassVar[int]
    title: str
    message: str
    button_label: str
    button_url: str
    def __init__(self, title: _Optional[str] = ..., message: _Optional[str] = ..., button_label: _Optional[str] = ..., button_url: _Optional[str] = ...) -> None: ...

class PreFetchedBlob(_message.Message):
    __slots__ = ("id", "value")
    ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    id: bytes
    value: bytes
    def __init__(self, id: _Optional[bytes] = ..., value: _Optional[bytes] = ...) -> None: ...

class PromptSuggestionUpdate(_message.Message):
    __slots__ = ("suggestion",)
    SUGGESTION_FIELD_NUMBER: _ClassVar[int]
    suggestion: str
    def __init__(self, suggestion: _Optional[str] = ...) -> None: ...

class PromptTokenBreakdownCategory(_message.Message):
    __slots__ = ("id", "label", "estimated_tokens", "character_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CHARACTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    estimated_tokens: int
    character_count: int
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ..., estimated_tokens: _Optional[int] = ..., character_count: _Optional[int] = ...) -> None: ...

class PromptTokenBreakdownSnapshot(_message.Message):
    __slots__ = ("total_used_tokens", "max_tokens", "categories")
    TOTAL_USED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    total_used_tokens: int
    max_tokens: int
    categories: _containers.RepeatedCompositeFieldContainer[PromptTokenBreakdownCategory]
    def __init__(self, total_used_tokens: _Optional[int] = ..., max_tokens: _Optional[int] = ..., categories: _Optional[_Iterable[_Union[PromptTokenBreakdownCategory, _Mapping]]] = ...) -> None: ...

class Range(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: Position
    end: Position
    def __init__(self, start: _Optional[_Union[Position, _Mapping]] = ..., end: _Optional[_Union[Position, _Mapping]] = ...) -> None: ...

class ReadArgs(_message.Message):
    __slots__ = ("path", "tool_call_id", "offset", "limit", "encoding_hint")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ENCODING_HINT_FIELD_NUMBER: _ClassVar[int]
    path: str
    tool_call_id: str
    offset: int
    limit: int
    encoding_hint: str
    def __init__(self, path: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., encoding_hint: _Optional[str] = ...) -> None: ...

class ReadError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ReadFileNotFound(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class ReadInvalidFile(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReadLintsToolArgs(_message.Message):
    __slots__ = ("paths",)
    PATHS_FIELD_NUMBER: _ClassVar[int]
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, paths: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadLintsToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ReadLintsToolArgs
    result: ReadLintsToolResult
    def __init__(self, args: _Optional[_Union[ReadLintsToolArgs, _Mapping]] = ..., result: _Optional[_Union[ReadLintsToolResult, _Mapping]] = ...) -> None: ...

class ReadLintsToolError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class ReadLintsToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ReadLintsToolSuccess
    error: ReadLintsToolError
    def __init__(self, success: _Optional[_Union[ReadLintsToolSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadLintsToolError, _Mapping]] = ...) -> None: ...

class ReadLintsToolSuccess(_message.Message):
    __slots__ = ("file_diagnostics", "total_files", "total_diagnostics")
    FILE_DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    file_diagnostics: _containers.RepeatedCompositeFieldContainer[FileDiagnostics]
    total_files: int
    total_diagnostics: int
    def __init__(self, file_diagnostics: _Optional[_Iterable[_Union[FileDiagnostics, _Mapping]]] = ..., total_files: _Optional[int] = ..., total_diagnostics: _Optional[int] = ...) -> None: ...

class ReadMcpResourceError(_message.Message):
    __slots__ = ("uri", "error")
    URI_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    uri: str
    error: str
    def __init__(self, uri: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ReadMcpResourceExecArgs(_message.Message):
    __slots__ = ("server", "uri", "download_path", "tool_call_id", "smart_mode_approval")
    SERVER_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_PATH_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    server: str
    uri: str
    download_path: str
    tool_call_id: str
    smart_mode_approval: SmartModeApproval
    def __init__(self, server: _Optional[str] = ..., uri: _Optional[str] = ..., download_path: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ...) -> None: ...

class ReadMcpResourceExecResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "not_found")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    success: ReadMcpResourceSuccess
    error: ReadMcpResourceError
    rejected: ReadMcpResourceRejected
    not_found: ReadMcpResourceNotFound
    def __init__(self, success: _Optional[_Union[ReadMcpResourceSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadMcpResourceError, _Mapping]] = ..., rejected: _Optional[_Union[ReadMcpResourceRejected, _Mapping]] = ..., not_found: _Optional[_Union[ReadMcpResourceNotFound, _Mapping]] = ...) -> None: ...

class ReadMcpResourceNotFound(_message.Message):
    __slots__ = ("uri",)
    URI_FIELD_NUMBER: _ClassVar[int]
    uri: str
    def __init__(self, uri: _Optional[str] = ...) -> None: ...

class ReadMcpResourceRejected(_message.Message):
    __slots__ = ("uri", "reason")
    URI_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    uri: str
    reason: str
    def __init__(self, uri: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReadMcpResourceSuccess(_message.Message):
    __slots__ = ("uri", "name", "description", "mime_type", "text", "blob", "annotations", "download_path", "output_location")
    class AnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    URI_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    BLOB_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    DOWNLOAD_PATH_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    uri: str
    name: str
    description: str
    mime_type: str
    text: str
    blob: bytes
    annotations: _containers.ScalarMap[str, str]
    download_path: str
    output_location: OutputLocation
    def __init__(self, uri: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., mime_type: _Optional[str] = ..., text: _Optional[str] = ..., blob: _Optional[bytes] = ..., annotations: _Optional[_Mapping[str, str]] = ..., download_path: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ...) -> None: ...

class ReadMcpResourceToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ReadMcpResourceExecArgs
    result: ReadMcpResourceExecResult
    def __init__(self, args: _Optional[_Union[ReadMcpResourceExecArgs, _Mapping]] = ..., result: _Optional[_Union[ReadMcpResourceExecResult, _Mapping]] = ...) -> None: ...

class ReadPermissionDenied(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class ReadRange(_message.Message):
    __slots__ = ("start_line", "end_line")
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    start_line: int
    end_line: int
    def __init__(self, start_line: _Optional[int] = ..., end_line: _Optional[int] = ...) -> None: ...

class ReadRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReadResult(_message.Message):
    __slots__ = ("success", "error", "rejected", "file_not_found", "permission_denied", "invalid_file")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    FILE_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    INVALID_FILE_FIELD_NUMBER: _ClassVar[int]
    success: ReadSuccess
    error: ReadError
    rejected: ReadRejected
    file_not_found: ReadFileNotFound
    permission_denied: ReadPermissionDenied
    invalid_file: ReadInvalidFile
    def __init__(self, success: _Optional[_Union[ReadSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadError, _Mapping]] = ..., rejected: _Optional[_Union[ReadRejected, _Mapping]] = ..., file_not_found: _Optional[_Union[ReadFileNotFound, _Mapping]] = ..., permission_denied: _Optional[_Union[ReadPermissionDenied, _Mapping]] = ..., invalid_file: _Optional[_Union[ReadInvalidFile, _Mapping]] = ...) -> None: ...

class ReadSuccess(_message.Message):
    __slots__ = ("path", "content", "data", "total_lines", "file_size", "truncated", "output_blob_id", "range_applied")
    PATH_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    RANGE_APPLIED_FIELD_NUMBER: _ClassVar[int]
    path: str
    content: str
    data: bytes
    total_lines: int
    file_size: int
    truncated: bool
    output_blob_id: bytes
    range_applied: bool
    def __init__(self, path: _Optional[str] = ..., content: _Optional[str] = ..., data: _Optional[bytes] = ..., total_lines: _Optional[int] = ..., file_size: _Optional[int] = ..., truncated: _Optional[bool] = ..., output_blob_id: _Optional[bytes] = ..., range_applied: _Optional[bool] = ...) -> None: ...

class ReadTodosArgs(_message.Message):
    __slots__ = ("status_filter", "id_filter")
    STATUS_FILTER_FIELD_NUMBER: _ClassVar[int]
    ID_FILTER_FIELD_NUMBER: _ClassVar[int]
    status_filter: _containers.RepeatedScalarFieldContainer[TodoStatus]
    id_filter: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, status_filter: _Optional[_Iterable[_Union[TodoStatus, str]]] = ..., id_filter: _Optional[_Iterable[str]] = ...) -> None: ...

class ReadTodosError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class ReadTodosResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ReadTodosSuccess
    error: ReadTodosError
    def __init__(self, success: _Optional[_Union[ReadTodosSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadTodosError, _Mapping]] = ...) -> None: ...

class ReadTodosSuccess(_message.Message):
    __slots__ = ("todos", "total_count")
    TODOS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    total_count: int
    def __init__(self, todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ..., total_count: _Optional[int] = ...) -> None: ...

class ReadTodosToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ReadTodosArgs
    result: ReadTodosResult
    def __init__(self, args: _Optional[_Union[ReadTodosArgs, _Mapping]] = ..., result: _Optional[_Union[ReadTodosResult, _Mapping]] = ...) -> None: ...

class ReadToolArgs(_message.Message):
    __slots__ = ("path", "offset", "limit", "include_line_numbers")
    PATH_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LINE_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    path: str
    offset: int
    limit: int
    include_line_numbers: bool
    def __init__(self, path: _Optional[str] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ..., include_line_numbers: _Optional[bool] = ...) -> None: ...

class ReadToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: ReadToolArgs
    result: ReadToolResult
    def __init__(self, args: _Optional[_Union[ReadToolArgs, _Mapping]] = ..., result: _Optional[_Union[ReadToolResult, _Mapping]] = ...) -> None: ...

class ReadToolError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class ReadToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: ReadToolSuccess
    error: ReadToolError
    def __init__(self, success: _Optional[_Union[ReadToolSuccess, _Mapping]] = ..., error: _Optional[_Union[ReadToolError, _Mapping]] = ...) -> None: ...

class ReadToolSuccess(_message.Message):
    __slots__ = ("content", "data", "data_blob_id", "content_blob_id", "is_empty", "exceeded_limit", "total_lines", "file_size", "path", "read_range", "include_line_numbers", "related_cursor_rule_paths", "related_cursor_rules")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DATA_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    IS_EMPTY_FIELD_NUMBER: _ClassVar[int]
    EXCEEDED_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LINES_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    READ_RANGE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LINE_NUMBERS_FIELD_NUMBER: _ClassVar[int]
    RELATED_CURSOR_RULE_PATHS_FIELD_NUMBER: _ClassVar[int]
    RELATED_CURSOR_RULES_FIELD_NUMBER: _ClassVar[int]
    content: str
    data: bytes
    data_blob_id: bytes
    content_blob_id: bytes
    is_empty: bool
    exceeded_limit: bool
    total_lines: int
    file_size: int
    path: str
    read_range: ReadRange
    include_line_numbers: bool
    related_cursor_rule_paths: _containers.RepeatedScalarFieldContainer[str]
    related_cursor_rules: _containers.RepeatedCompositeFieldContainer[CursorRule]
    def __init__(self, content: _Optional[str] = ..., data: _Optional[bytes] = ..., data_blob_id: _Optional[bytes] = ..., content_blob_id: _Optional[bytes] = ..., is_empty: _Optional[bool] = ..., exceeded_limit: _Optional[bool] = ..., total_lines: _Optional[int] = ..., file_size: _Optional[int] = ..., path: _Optional[str] = ..., read_range: _Optional[_Union[ReadRange, _Mapping]] = ..., include_line_numbers: _Optional[bool] = ..., related_cursor_rule_paths: _Optional[_Iterable[str]] = ..., related_cursor_rules: _Optional[_Iterable[_Union[CursorRule, _Mapping]]] = ...) -> None: ...

class ReplaceEnvToolCallDelta(_message.Message):
    __slots__ = ("associated_pod_key",)
    ASSOCIATED_POD_KEY_FIELD_NUMBER: _ClassVar[int]
    associated_pod_key: str
    def __init__(self, associated_pod_key: _Optional[str] = ...) -> None: ...

class RepositoryIndexingInfo(_message.Message):
    __slots__ = ("relative_workspace_path", "remote_urls", "remote_names", "repo_name", "repo_owner", "is_tracked", "is_local", "orthogonal_transform_seed", "workspace_uri", "path_encryption_key")
    RELATIVE_WORKSPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    REMOTE_URLS_FIELD_NUMBER: _ClassVar[int]
    REMOTE_NAMES_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_OWNER_FIELD_NUMBER: _ClassVar[int]
    IS_TRACKED_FIELD_NUMBER: _ClassVar[int]
    IS_LOCAL_FIELD_NUMBER: _ClassVar[int]
    ORTHOGONAL_TRANSFORM_SEED_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_URI_FIELD_NUMBER: _ClassVar[int]
    PATH_ENCRYPTION_KEY_FIELD_NUMBER: _ClassVar[int]
    relative_workspace_path: str
    remote_urls: _containers.RepeatedScalarFieldContainer[str]
    remote_names: _containers.RepeatedScalarFieldContainer[str]
    repo_name: str
    repo_owner: str
    is_tracked: bool
    is_local: bool
    orthogonal_transform_seed: float
    workspace_uri: str
    path_encryption_key: str
    def __init__(self, relative_workspace_path: _Optional[str] = ..., remote_urls: _Optional[_Iterable[str]] = ..., remote_names: _Optional[_Iterable[str]] = ..., repo_name: _Optional[str] = ..., repo_owner: _Optional[str] = ..., is_tracked: _Optional[bool] = ..., is_local: _Optional[bool] = ..., orthogonal_transform_seed: _Optional[float] = ..., workspace_uri: _Optional[str] = ..., path_encryption_key: _Optional[str] = ...) -> None: ...

class RequestContext(_message.Message):
    __slots__ = ("rules", "env", "repository_info", "tools", "conversation_notes_listing", "shared_notes_listing", "git_repos", "project_layouts", "mcp_instructions", "cloud_rule", "web_search_enabled", "skill_options", "repository_info_should_query_prod", "file_contents", "user_intent_summary", "custom_subagents", "mcp_file_system_options", "web_fetch_enabled", "hooks_additional_context", "commit_attribution_message", "pr_attribution_message", "agent_skills", "supports_mcp_auth", "git_repo_info_complete", "mcp_meta_tool_options", "read_lints_enabled", "mcp_info_complete", "non_file_rules", "rules_info_complete", "env_info_complete", "repository_info_complete", "custom_subagents_info_complete", "agent_skills_info_complete", "mcp_file_system_info_complete", "git_status_info_complete", "user_permissions_auto_run", "project_permissions_auto_run", "admin_permissions_auto_run", "disabled_team_rules", "search_conversations_enabled", "send_message_enabled", "admin_command_denylist")
    class FileContentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RULES_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_INFO_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_NOTES_LISTING_FIELD_NUMBER: _ClassVar[int]
    SHARED_NOTES_LISTING_FIELD_NUMBER: _ClassVar[int]
    GIT_REPOS_FIELD_NUMBER: _ClassVar[int]
    PROJECT_LAYOUTS_FIELD_NUMBER: _ClassVar[int]
    MCP_INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    CLOUD_RULE_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_ENABLED_FIELD_NUMBER: _ClassVar[int]
    SKILL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_INFO_SHOULD_QUERY_PROD_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENTS_FIELD_NUMBER: _ClassVar[int]
    USER_INTENT_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SUBAGENTS_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    WEB_FETCH_ENABLED_FIELD_NUMBER: _ClassVar[int]
    HOOKS_ADDITIONAL_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_ATTRIBUTION_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PR_ATTRIBUTION_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    AGENT_SKILLS_FIELD_NUMBER: _ClassVar[int]
    SUPPORTS_MCP_AUTH_FIELD_NUMBER: _ClassVar[int]
    GIT_REPO_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    MCP_META_TOOL_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    READ_LINTS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    MCP_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    NON_FILE_RULES_FIELD_NUMBER: _ClassVar[int]
    RULES_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ENV_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_SUBAGENTS_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    AGENT_SKILLS_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    MCP_FILE_SYSTEM_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    GIT_STATUS_INFO_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    USER_PERMISSIONS_AUTO_RUN_FIELD_NUMBER: _ClassVar[int]
    PROJECT_PERMISSIONS_AUTO_RUN_FIELD_NUMBER: _ClassVar[int]
    ADMIN_PERMISSIONS_AUTO_RUN_FIELD_NUMBER: _ClassVar[int]
    DISABLED_TEAM_RULES_FIELD_NUMBER: _ClassVar[int]
    SEARCH_CONVERSATIONS_ENABLED_FIELD_NUMBER: _ClassVar[int]
    SEND_MESSAGE_ENABLED_FIELD_NUMBER: _ClassVar[int]
    ADMIN_COMMAND_DENYLIST_FIELD_NUMBER: _ClassVar[int]
    rules: _containers.RepeatedCompositeFieldContainer[CursorRule]
    env: RequestContextEnv
    repository_info: _containers.RepeatedCompositeFieldContainer[RepositoryIndexingInfo]
    tools: _containers.RepeatedCompositeFieldContainer[McpToolDefinition]
    conversation_notes_listing: str
    shared_notes_listing: str
    git_repos: _containers.RepeatedCompositeFieldContainer[GitRepoInfo]
    project_layouts: _containers.RepeatedCompositeFieldContainer[LsDirectoryTreeNode]
    mcp_instructions: _containers.RepeatedCompositeFieldContainer[McpInstructions]
    cloud_rule: str
    web_search_enabled: bool
    skill_options: SkillOptions
    repository_info_should_query_prod: bool
    file_contents: _containers.ScalarMap[str, str]
    user_intent_summary: str
    custom_subagents: _containers.RepeatedCompositeFieldContainer[CustomSubagent]
    mcp_file_system_options: McpFileSystemOptions
    web_fetch_enabled: bool
    hooks_additional_context: str
    commit_attribution_message: str
    pr_attribution_message: str
    agent_skills: _containers.RepeatedCompositeFieldContainer[AgentSkill]
    supports_mcp_auth: bool
    git_repo_info_complete: bool
    mcp_meta_tool_options: McpMetaToolOptions
    read_lints_enabled: bool
    mcp_info_complete: bool
    non_file_rules: _containers.RepeatedCompositeFieldContainer[CursorRule]
    rules_info_complete: bool
    env_info_complete: bool
    repository_info_complete: bool
    custom_subagents_info_complete: bool
    agent_skills_info_complete: bool
    mcp_file_system_info_complete: bool
    git_status_info_complete: bool
    user_permissions_auto_run: PermissionsAutoRunInstructions
    project_permissions_auto_run: PermissionsAutoRunInstructions
    admin_permissions_auto_run: PermissionsAutoRunInstructions
    disabled_team_rules: _containers.RepeatedScalarFieldContainer[str]
    search_conversations_enabled: bool
    send_message_enabled: bool
    admin_command_denylist: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rules: _Optional[_Iterable[_Union[CursorRule, _Mapping]]] = ..., env: _Optional[_Union[RequestContextEnv, _Mapping]] = ..., repository_info: _Optional[_Iterable[_Union[RepositoryIndexingInfo, _Mapping]]] = ..., tools: _Optional[_Iterable[_Union[McpToolDefinition, _Mapping]]] = ..., conversation_notes_listing: _Optional[str] = ..., shared_notes_listing: _Optional[str] = ..., git_repos: _Optional[_Iterable[_Union[GitRepoInfo, _Mapping]]] = ..., project_layouts: _Optional[_Iterable[_Union[LsDirectoryTreeNode, _Mapping]]] = ..., mcp_instructions: _Optional[_Iterable[_Union[McpInstructions, _Mapping]]] = ..., cloud_rule: _Optional[str] = ..., web_search_enabled: _Optional[bool] = ..., skill_options: _Optional[_Union[SkillOptions, _Mapping]] = ..., repository_info_should_query_prod: _Optional[bool] = ..., file_contents: _Optional[_Mapping[str, str]] = ..., user_intent_summary: _Optional[str] = ..., custom_subagents: _Optional[_Iterable[_Union[CustomSubagent, _Mapping]]] = ..., mcp_file_system_options: _Optional[_Union[McpFileSystemOptions, _Mapping]] = ..., web_fetch_enabled: _Optional[bool] = ..., hooks_additional_context: _Optional[str] = ..., commit_attribution_message: _Optional[str] = ..., pr_attribution_message: _Optional[str] = ..., agent_skills: _Optional[_Iterable[_Union[AgentSkill, _Mapping]]] = ..., supports_mcp_auth: _Optional[bool] = ..., git_repo_info_complete: _Optional[bool] = ..., mcp_meta_tool_options: _Optional[_Union[McpMetaToolOptions, _Mapping]] = ..., read_lints_enabled: _Optional[bool] = ..., mcp_info_complete: _Optional[bool] = ..., non_file_rules: _Optional[_Iterable[_Union[CursorRule, _Mapping]]] = ..., rules_info_complete: _Optional[bool] = ..., env_info_complete: _Optional[bool] = ..., repository_info_complete: _Optional[bool] = ..., custom_subagents_info_complete: _Optional[bool] = ..., agent_skills_info_complete: _Optional[bool] = ..., mcp_file_system_info_complete: _Optional[bool] = ..., git_status_info_complete: _Optional[bool] = ..., user_permissions_auto_run: _Optional[_Union[PermissionsAutoRunInstructions, _Mapping]] = ..., project_permissions_auto_run: _Optional[_Union[PermissionsAutoRunInstructions, _Mapping]] = ..., admin_permissions_auto_run: _Optional[_Union[PermissionsAutoRunInstructions, _Mapping]] = ..., disabled_team_rules: _Optional[_Iterable[str]] = ..., search_conversations_enabled: _Optional[bool] = ..., send_message_enabled: _Optional[bool] = ..., admin_command_denylist: _Optional[_Iterable[str]] = ...) -> None: ...

class RequestContextArgs(_message.Message):
    __slots__ = ("notes_session_id", "workspace_id", "read_only_pinned_tree_sha", "read_only_plugin_cache_root", "use_cached")
    NOTES_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ID_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PINNED_TREE_SHA_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_PLUGIN_CACHE_ROOT_FIELD_NUMBER: _ClassVar[int]
    USE_CACHED_FIELD_NUMBER: _ClassVar[int]
    notes_session_id: str
    workspace_id: str
    read_only_pinned_tree_sha: str
    read_only_plugin_cache_root: str
    use_cached: bool
    def __init__(self, notes_session_id: _Optional[str] = ..., workspace_id: _Optional[str] = ..., read_only_pinned_tree_sha: _Optional[str] = ..., read_only_plugin_cache_root: _Optional[str] = ..., use_cached: _Optional[bool] = ...) -> None: ...

class RequestContextEnv(_message.Message):
    __slots__ = ("os_version", "workspace_paths", "shell", "sandbox_enabled", "terminals_folder", "agent_shared_notes_folder", "agent_conversation_notes_folder", "time_zone", "project_folder", "agent_transcripts_folder", "artifacts_folder", "sandbox_supported", "sandbox_network_has_defaults", "sandbox_network_explicit_allowlist", "secret_redaction_enabled", "computer_use_supported", "is_working_dir_home_dir", "process_working_directory", "smart_mode_classifier_auto_mode_enabled", "dev_force_next_smart_mode_classifier_block_token", "dev_delay_next_smart_mode_classifier_token")
    OS_VERSION_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_PATHS_FIELD_NUMBER: _ClassVar[int]
    SHELL_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_ENABLED_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FOLDER_FIELD_NUMBER: _ClassVar[int]
    AGENT_SHARED_NOTES_FOLDER_FIELD_NUMBER: _ClassVar[int]
    AGENT_CONVERSATION_NOTES_FOLDER_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    PROJECT_FOLDER_FIELD_NUMBER: _ClassVar[int]
    AGENT_TRANSCRIPTS_FOLDER_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FOLDER_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_SUPPORTED_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_NETWORK_HAS_DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_NETWORK_EXPLICIT_ALLOWLIST_FIELD_NUMBER: _ClassVar[int]
    SECRET_REDACTION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_SUPPORTED_FIELD_NUMBER: _ClassVar[int]
    IS_WORKING_DIR_HOME_DIR_FIELD_NUMBER: _ClassVar[int]
    PROCESS_WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_CLASSIFIER_AUTO_MODE_ENABLED_FIELD_NUMBER: _ClassVar[int]
    DEV_FORCE_NEXT_SMART_MODE_CLASSIFIER_BLOCK_TOKEN_FIELD_NUMBER: _ClassVar[int]
    DEV_DELAY_NEXT_SMART_MODE_CLASSIFIER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    os_version: str
    workspace_paths: _containers.RepeatedScalarFieldContainer[str]
    shell: str
    sandbox_enabled: bool
    terminals_folder: str
    agent_shared_notes_folder: str
    agent_conversation_notes_folder: str
    time_zone: str
    project_folder: str
    agent_transcripts_folder: str
    artifacts_folder: str
    sandbox_supported: bool
    sandbox_network_has_defaults: bool
    sandbox_network_explicit_allowlist: _containers.RepeatedScalarFieldContainer[str]
    secret_redaction_enabled: bool
    computer_use_supported: bool
    is_working_dir_home_dir: bool
    process_working_directory: str
    smart_mode_classifier_auto_mode_enabled: bool
    dev_force_next_smart_mode_classifier_block_token: str
    dev_delay_next_smart_mode_classifier_token: str
    def __init__(self, os_version: _Optional[str] = ..., workspace_paths: _Optional[_Iterable[str]] = ..., shell: _Optional[str] = ..., sandbox_enabled: _Optional[bool] = ..., terminals_folder: _Optional[str] = ..., agent_shared_notes_folder: _Optional[str] = ..., agent_conversation_notes_folder: _Optional[str] = ..., time_zone: _Optional[str] = ..., project_folder: _Optional[str] = ..., agent_transcripts_folder: _Optional[str] = ..., artifacts_folder: _Optional[str] = ..., sandbox_supported: _Optional[bool] = ..., sandbox_network_has_defaults: _Optional[bool] = ..., sandbox_network_explicit_allowlist: _Optional[_Iterable[str]] = ..., secret_redaction_enabled: _Optional[bool] = ..., computer_use_supported: _Optional[bool] = ..., is_working_dir_home_dir: _Optional[bool] = ..., process_working_directory: _Optional[str] = ..., smart_mode_classifier_auto_mode_enabled: _Optional[bool] = ..., dev_force_next_smart_mode_classifier_block_token: _Optional[str] = ..., dev_delay_next_smart_mode_classifier_token: _Optional[str] = ...) -> None: ...

class RequestContextError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class RequestContextPartReferences(_message.Message):
    __slots__ = ("rules_blob_id", "rules_byte_length", "skills_blob_id", "skills_byte_length", "subagents_blob_id", "subagents_byte_length", "mcps_blob_id", "mcps_byte_length", "dynamic_context")
    RULES_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SKILLS_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    SKILLS_BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SUBAGENTS_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    SUBAGENTS_BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MCPS_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    MCPS_BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    rules_blob_id: bytes
    rules_byte_length: int
    skills_blob_id: bytes
    skills_byte_length: int
    subagents_blob_id: bytes
    subagents_byte_length: int
    mcps_blob_id: bytes
    mcps_byte_length: int
    dynamic_context: RequestContext
    def __init__(self, rules_blob_id: _Optional[bytes] = ..., rules_byte_length: _Optional[int] = ..., skills_blob_id: _Optional[bytes] = ..., skills_byte_length: _Optional[int] = ..., subagents_blob_id: _Optional[bytes] = ..., subagents_byte_length: _Optional[int] = ..., mcps_blob_id: _Optional[bytes] = ..., mcps_byte_length: _Optional[int] = ..., dynamic_context: _Optional[_Union[RequestContext, _Mapping]] = ...) -> None: ...

class RequestContextRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class RequestContextResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: RequestContextSuccess
    error: RequestContextError
    rejected: RequestContextRejected
    def __init__(self, success: _Optional[_Union[RequestContextSuccess, _Mapping]] = ..., error: _Optional[_Union[RequestContextError, _Mapping]] = ..., rejected: _Optional[_Union[RequestContextRejected, _Mapping]] = ...) -> None: ...

class RequestContextSuccess(_message.Message):
    __slots__ = ("request_context", "served_from_disk_cache")
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SERVED_FROM_DISK_CACHE_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    served_from_disk_cache: bool
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., served_from_disk_cache: _Optional[bool] = ...) -> None: ...

class ResponseComparisonCompleted(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ResponseComparisonSkipped(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: ResponseComparisonSkipReason
    def __init__(self, reason: _Optional[_Union[ResponseComparisonSkipReason, str]] = ...) -> None: ...

class ResponseComparisonStarted(_message.Message):
    __slots__ = ("display_order", "parent_invocation_id", "alternate_invocation_id", "parent_response", "comparison_config_id", "alternate_model_id")
    DISPLAY_ORDER_FIELD_NUMBER: _ClassVar[int]
    PARENT_INVOCATION_ID_FIELD_NUMBER: _ClassVar[int]
    ALTERNATE_INVOCATION_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    COMPARISON_CONFIG_ID_FIELD_NUMBER: _ClassVar[int]
    ALTERNATE_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    display_order: ResponseComparisonDisplayOrder
    parent_invocation_id: str
    alternate_invocation_id: str
    parent_response: str
    comparison_config_id: str
    alternate_model_id: str
    def __init__(self, display_order: _Optional[_Union[ResponseComparisonDisplayOrder, str]] = ..., parent_invocation_id: _Optional[str] = ..., alternate_invocation_id: _Optional[str] = ..., parent_response: _Optional[str] = ..., comparison_config_id: _Optional[str] = ..., alternate_model_id: _Optional[str] = ...) -> None: ...

class ResponseComparisonTextDelta(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class ResponseComparisonUpdate(_message.Message):
    __slots__ = ("comparison_id", "started", "text_delta", "completed", "skipped")
    COMPARISON_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    TEXT_DELTA_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    comparison_id: str
    started: ResponseComparisonStarted
    text_delta: ResponseComparisonTextDelta
    completed: ResponseComparisonCompleted
    skipped: ResponseComparisonSkipped
    def __init__(self, comparison_id: _Optional[str] = ..., started: _Optional[_Union[ResponseComparisonStarted, _Mapping]] = ..., text_delta: _Optional[_Union[ResponseComparisonTextDelta, _Mapping]] = ..., completed: _Optional[_Union[ResponseComparisonCompleted, _Mapping]] = ..., skipped: _Optional[_Union[ResponseComparisonSkipped, _Mapping]] = ...) -> None: ...

class ResumeAction(_message.Message):
    __slots__ = ("request_context",)
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    request_context: RequestContext
    def __init__(self, request_context: _Optional[_Union[RequestContext, _Mapping]] = ...) -> None: ...

class RoutedModelUpdate(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class SandboxPolicy(_message.Message):
    __slots__ = ("type", "network_access", "additional_readwrite_paths", "additional_readonly_paths", "debug_output_dir", "disable_tmp_write", "allowlist_escalated", "enable_shared_build_cache", "network_policy", "network_policy_strict", "capture_denies", "skip_statsig_defaults", "read_boundary", "additional_read_paths")
    class ReadBoundaryMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        READ_BOUNDARY_MODE_UNSPECIFIED: _ClassVar[SandboxPolicy.ReadBoundaryMode]
        READ_BOUNDARY_MODE_SYSTEM: _ClassVar[SandboxPolicy.ReadBoundaryMode]
        READ_BOUNDARY_MODE_WORKSPACE: _ClassVar[SandboxPolicy.ReadBoundaryMode]
        READ_BOUNDARY_MODE_CUSTOM: _ClassVar[SandboxPolicy.ReadBoundaryMode]
    READ_BOUNDARY_MODE_UNSPECIFIED: SandboxPolicy.ReadBoundaryMode
    READ_BOUNDARY_MODE_SYSTEM: SandboxPolicy.ReadBoundaryMode
    READ_BOUNDARY_MODE_WORKSPACE: SandboxPolicy.ReadBoundaryMode
    READ_BOUNDARY_MODE_CUSTOM: SandboxPolicy.ReadBoundaryMode
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TYPE_UNSPECIFIED: _ClassVar[SandboxPolicy.Type]
        TYPE_INSECURE_NONE: _ClassVar[SandboxPolicy.Type]
        TYPE_WORKSPACE_READWRITE: _ClassVar[SandboxPolicy.Type]
        TYPE_WORKSPACE_READONLY: _ClassVar[SandboxPolicy.Type]
    TYPE_UNSPECIFIED: SandboxPolicy.Type
    TYPE_INSECURE_NONE: SandboxPolicy.Type
    TYPE_WORKSPACE_READWRITE: SandboxPolicy.Type
    TYPE_WORKSPACE_READONLY: SandboxPolicy.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_ACCESS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_READWRITE_PATHS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_READONLY_PATHS_FIELD_NUMBER: _ClassVar[int]
    DEBUG_OUTPUT_DIR_FIELD_NUMBER: _ClassVar[int]
    DISABLE_TMP_WRITE_FIELD_NUMBER: _ClassVar[int]
    ALLOWLIST_ESCALATED_FIELD_NUMBER: _ClassVar[int]
    ENABLE_SHARED_BUILD_CACHE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_POLICY_FIELD_NUMBER: _ClassVar[int]
    NETWORK_POLICY_STRICT_FIELD_NUMBER: _ClassVar[int]
    CAPTURE_DENIES_FIELD_NUMBER: _ClassVar[int]
    SKIP_STATSIG_DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    READ_BOUNDARY_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_READ_PATHS_FIELD_NUMBER: _ClassVar[int]
    type: SandboxPolicy.Type
    network_access: bool
    additional_readwrite_paths: _containers.RepeatedScalarFieldContainer[str]
    additional_readonly_paths: _containers.RepeatedScalarFieldContainer[str]
    debug_output_dir: str
    disable_tmp_write: bool
    allowlist_escalated: bool
    enable_shared_build_cache: bool
    network_policy: NetworkPolicy
    network_policy_strict: bool
    capture_denies: bool
    skip_statsig_defaults: bool
    read_boundary: SandboxPolicy.ReadBoundaryMode
    additional_read_paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[_Union[SandboxPolicy.Type, str]] = ..., network_access: _Optional[bool] = ..., additional_readwrite_paths: _Optional[_Iterable[str]] = ..., additional_readonly_paths: _Optional[_Iterable[str]] = ..., debug_output_dir: _Optional[str] = ..., disable_tmp_write: _Optional[bool] = ..., allowlist_escalated: _Optional[bool] = ..., enable_shared_build_cache: _Optional[bool] = ..., network_policy: _Optional[_Union[NetworkPolicy, _Mapping]] = ..., network_policy_strict: _Optional[bool] = ..., capture_denies: _Optional[bool] = ..., skip_statsig_defaults: _Optional[bool] = ..., read_boundary: _Optional[_Union[SandboxPolicy.ReadBoundaryMode, str]] = ..., additional_read_paths: _Optional[_Iterable[str]] = ...) -> None: ...

class SelectedCodeSelection(_message.Message):
    __slots__ = ("content", "path", "relative_path", "range")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    RELATIVE_PATH_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    content: str
    path: str
    relative_path: str
    range: Range
    def __init__(self, content: _Optional[str] = ..., path: _Optional[str] = ..., relative_path: _Optional[str] = ..., range: _Optional[_Union[Range, _Mapping]] = ...) -> None: ...

class SelectedConsoleLog(_message.Message):
    __slots__ = ("message", "timestamp", "level", "client_name", "session_id", "stack_trace", "object_data_json")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    STACK_TRACE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    message: str
    timestamp: float
    level: str
    client_name: str
    session_id: str
    stack_trace: StackTrace
    object_data_json: str
    def __init__(self, message: _Optional[str] = ..., timestamp: _Optional[float] = ..., level: _Optional[str] = ..., client_name: _Optional[str] = ..., session_id: _Optional[str] = ..., stack_trace: _Optional[_Union[StackTrace, _Mapping]] = ..., object_data_json: _Optional[str] = ...) -> None: ...

class SelectedContext(_message.Message):
    __slots__ = ("selected_images", "extra_context", "files", "code_selections", "terminals", "terminal_selections", "folders", "external_links", "cursor_rules", "git_diff_from_branch_to_main", "cursor_commands", "documentations", "ui_elements", "console_logs", "extra_context_entries", "git_commits", "git_diff", "selected_documents", "selected_skills")
    SELECTED_IMAGES_FIELD_NUMBER: _ClassVar[int]
    EXTRA_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    CODE_SELECTIONS_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_SELECTIONS_FIELD_NUMBER: _ClassVar[int]
    FOLDERS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_LINKS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_RULES_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_FROM_BRANCH_TO_MAIN_FIELD_NUMBER: _ClassVar[int]
    CURSOR_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTATIONS_FIELD_NUMBER: _ClassVar[int]
    UI_ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    CONSOLE_LOGS_FIELD_NUMBER: _ClassVar[int]
    EXTRA_CONTEXT_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMITS_FIELD_NUMBER: _ClassVar[int]
    GIT_DIFF_FIELD_NUMBER: _ClassVar[int]
    SELECTED_DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    SELECTED_SKILLS_FIELD_NUMBER: _ClassVar[int]
    selected_images: _containers.RepeatedCompositeFieldContainer[SelectedImage]
    extra_context: _containers.RepeatedScalarFieldContainer[str]
    files: _containers.RepeatedCompositeFieldContainer[SelectedFile]
    code_selections: _containers.RepeatedCompositeFieldContainer[SelectedCodeSelection]
    terminals: _containers.RepeatedCompositeFieldContainer[SelectedTerminal]
    terminal_selections: _containers.RepeatedCompositeFieldContainer[SelectedTerminalSelection]
    folders: _containers.RepeatedCompositeFieldContainer[SelectedFolder]
    external_links: _containers.RepeatedCompositeFieldContainer[SelectedExternalLink]
    cursor_rules: _containers.RepeatedCompositeFieldContainer[SelectedCursorRule]
    git_diff_from_branch_to_main: SelectedGitDiffFromBranchToMain
    cursor_commands: _containers.RepeatedCompositeFieldContainer[SelectedCursorCommand]
    documentations: _containers.RepeatedCompositeFieldContainer[SelectedDocumentation]
    ui_elements: _containers.RepeatedCompositeFieldContainer[SelectedUIElement]
    console_logs: _containers.RepeatedCompositeFieldContainer[SelectedConsoleLog]
    extra_context_entries: _containers.RepeatedCompositeFieldContainer[ExtraContextEntry]
    git_commits: _containers.RepeatedCompositeFieldContainer[SelectedGitCommit]
    git_diff: SelectedGitDiff
    selected_documents: _containers.RepeatedCompositeFieldContainer[SelectedDocument]
    selected_skills: _containers.RepeatedCompositeFieldContainer[AgentSkill]
    def __init__(self, selected_images: _Optional[_Iterable[_Union[SelectedImage, _Mapping]]] = ..., extra_context: _Optional[_Iterable[str]] = ..., files: _Optional[_Iterable[_Union[SelectedFile, _Mapping]]] = ..., code_selections: _Optional[_Iterable[_Union[SelectedCodeSelection, _Mapping]]] = ..., terminals: _Optional[_Iterable[_Union[SelectedTerminal, _Mapping]]] = ..., terminal_selections: _Optional[_Iterable[_Union[SelectedTerminalSelection, _Mapping]]] = ..., folders: _Optional[_Iterable[_Union[SelectedFolder, _Mapping]]] = ..., external_links: _Optional[_Iterable[_Union[SelectedExternalLink, _Mapping]]] = ..., cursor_rules: _Optional[_Iterable[_Union[SelectedCursorRule, _Mapping]]] = ..., git_diff_from_branch_to_main: _Optional[_Union[SelectedGitDiffFromBranchToMain, _Mapping]] = ..., cursor_commands: _Optional[_Iterable[_Union[SelectedCursorCommand, _Mapping]]] = ..., documentations: _Optional[_Iterable[_Union[SelectedDocumentation, _Mapping]]] = ..., ui_elements: _Optional[_Iterable[_Union[SelectedUIElement, _Mapping]]] = ..., console_logs: _Optional[_Iterable[_Union[SelectedConsoleLog, _Mapping]]] = ..., extra_context_entries: _Optional[_Iterable[_Union[ExtraContextEntry, _Mapping]]] = ..., git_commits: _Optional[_Iterable[_Union[SelectedGitCommit, _Mapping]]] = ..., git_diff: _Optional[_Union[SelectedGitDiff, _Mapping]] = ..., selected_documents: _Optional[_Iterable[_Union[SelectedDocument, _Mapping]]] = ..., selected_skills: _Optional[_Iterable[_Union[AgentSkill, _Mapping]]] = ...) -> None: ...

class SelectedCursorCommand(_message.Message):
    __slots__ = ("name", "content", "plugin_capability", "full_path", "display_name")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_CAPABILITY_FIELD_NUMBER: _ClassVar[int]
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    content: str
    plugin_capability: SelectedPluginCapabilityRef
    full_path: str
    display_name: str
    def __init__(self, name: _Optional[str] = ..., content: _Optional[str] = ..., plugin_capability: _Optional[_Union[SelectedPluginCapabilityRef, _Mapping]] = ..., full_path: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class SelectedCursorRule(_message.Message):
    __slots__ = ("rule",)
    RULE_FIELD_NUMBER: _ClassVar[int]
    rule: CursorRule
    def __init__(self, rule: _Optional[_Union[CursorRule, _Mapping]] = ...) -> None: ...

class SelectedDocument(_message.Message):
    __slots__ = ("blob_id", "data", "blob_id_with_data", "uuid", "filename", "mime_type", "path")
    class BlobIdWithData(_message.Message):
        __slots__ = ("blob_id", "data")
        BLOB_ID_FIELD_NUMBER: _ClassVar[int]
        DATA_FIELD_NUMBER: _ClassVar[int]
        blob_id: bytes
        data: bytes
        def __init__(self, blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ...) -> None: ...
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_WITH_DATA_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    data: bytes
    blob_id_with_data: SelectedDocument.BlobIdWithData
    uuid: str
    filename: str
    mime_type: str
    path: str
    def __init__(self, blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ..., blob_id_with_data: _Optional[_Union[SelectedDocument.BlobIdWithData, _Mapping]] = ..., uuid: _Optional[str] = ..., filename: _Optional[str] = ..., mime_type: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class SelectedDocumentation(_message.Message):
    __slots__ = ("doc_id", "name")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    name: str
    def __init__(self, doc_id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class SelectedExternalLink(_message.Message):
    __slots__ = ("url", "uuid", "pdf_content", "is_pdf", "filename", "blob_id")
    URL_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    PDF_CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_PDF_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    url: str
    uuid: str
    pdf_content: str
    is_pdf: bool
    filename: str
    blob_id: bytes
    def __init__(self, url: _Optional[str] = ..., uuid: _Optional[str] = ..., pdf_content: _Optional[str] = ..., is_pdf: _Optional[bool] = ..., filename: _Optional[str] = ..., blob_id: _Optional[bytes] = ...) -> None: ...

class SelectedFile(_message.Message):
    __slots__ = ("content", "path", "relative_path")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    RELATIVE_PATH_FIELD_NUMBER: _ClassVar[int]
    content: str
    path: str
    relative_path: str
    def __init__(self, content: _Optional[str] = ..., path: _Optional[str] = ..., relative_path: _Optional[str] = ...) -> None: ...

class SelectedFolder(_message.Message):
    __slots__ = ("path", "relative_path", "directory_tree")
    PATH_FIELD_NUMBER: _ClassVar[int]
    RELATIVE_PATH_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_TREE_FIELD_NUMBER: _ClassVar[int]
    path: str
    relative_path: str
    directory_tree: LsDirectoryTreeNode
    def __init__(self, path: _Optional[str] = ..., relative_path: _Optional[str] = ..., directory_tree: _Optional[_Union[LsDirectoryTreeNode, _Mapping]] = ...) -> None: ...

class SelectedGitCommit(_message.Message):
    __slots__ = ("sha", "message", "description", "diff")
    SHA_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DIFF_FIELD_NUMBER: _ClassVar[int]
    sha: str
    message: str
    description: str
    diff: str
    def __init__(self, sha: _Optional[str] = ..., message: _Optional[str] = ..., description: _Optional[str] = ..., diff: _Optional[str] = ...) -> None: ...

class SelectedGitDiff(_message.Message):
    __slots__ = ("content", "full_content_length_char_count")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    FULL_CONTENT_LENGTH_CHAR_COUNT_FIELD_NUMBER: _ClassVar[int]
    content: str
    full_content_length_char_count: int
    def __init__(self, content: _Optional[str] = ..., full_content_length_char_count: _Optional[int] = ...) -> None: ...

class SelectedGitDiffFromBranchToMain(_message.Message):
    __slots__ = ("content", "full_content_length_char_count")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    FULL_CONTENT_LENGTH_CHAR_COUNT_FIELD_NUMBER: _ClassVar[int]
    content: str
    full_content_length_char_count: int
    def __init__(self, content: _Optional[str] = ..., full_content_length_char_count: _Optional[int] = ...) -> None: ...

class SelectedImage(_message.Message):
    __slots__ = ("blob_id", "data", "blob_id_with_data", "uuid", "path", "dimension", "mime_type")
    class BlobIdWithData(_message.Message):
        __slots__ = ("blob_id", "data")
        BLOB_ID_FIELD_NUMBER: _ClassVar[int]
        DATA_FIELD_NUMBER: _ClassVar[int]
        blob_id: bytes
        data: bytes
        def __init__(self, blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ...) -> None: ...
    class Dimension(_message.Message):
        __slots__ = ("width", "height")
        WIDTH_FIELD_NUMBER: _ClassVar[int]
        HEIGHT_FIELD_NUMBER: _ClassVar[int]
        width: int
        height: int
        def __init__(self, width: _Optional[int] = ..., height: _Optional[int] = ...) -> None: ...
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    BLOB_ID_WITH_DATA_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    data: bytes
    blob_id_with_data: SelectedImage.BlobIdWithData
    uuid: str
    path: str
    dimension: SelectedImage.Dimension
    mime_type: str
    def __init__(self, blob_id: _Optional[bytes] = ..., data: _Optional[bytes] = ..., blob_id_with_data: _Optional[_Union[SelectedImage.BlobIdWithData, _Mapping]] = ..., uuid: _Optional[str] = ..., path: _Optional[str] = ..., dimension: _Optional[_Union[SelectedImage.Dimension, _Mapping]] = ..., mime_type: _Optional[str] = ...) -> None: ...

class SelectedPluginCapabilityRef(_message.Message):
    __slots__ = ("plugin_id", "capability_type", "source_path", "snapshot_token", "resolved_commit_sha")
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    CAPABILITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_PATH_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    plugin_id: str
    capability_type: SelectedPluginCapabilityType
    source_path: str
    snapshot_token: str
    resolved_commit_sha: str
    def __init__(self, plugin_id: _Optional[str] = ..., capability_type: _Optional[_Union[SelectedPluginCapabilityType, str]] = ..., source_path: _Optional[str] = ..., snapshot_token: _Optional[str] = ..., resolved_commit_sha: _Optional[str] = ...) -> None: ...

class SelectedTerminal(_message.Message):
    __slots__ = ("content", "title", "path")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    content: str
    title: str
    path: str
    def __init__(self, content: _Optional[str] = ..., title: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class SelectedTerminalSelection(_message.Message):
    __slots__ = ("content", "title", "path", "range")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    content: str
    title: str
    path: str
    range: Range
    def __init__(self, content: _Optional[str] = ..., title: _Optional[str] = ..., path: _Optional[str] = ..., range: _Optional[_Union[Range, _Mapping]] = ...) -> None: ...

class SelectedUIElement(_message.Message):
    __slots__ = ("element", "xpath", "text_content", "extra", "component", "component_props_json")
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    XPATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_CONTENT_FIELD_NUMBER: _ClassVar[int]
    EXTRA_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_PROPS_JSON_FIELD_NUMBER: _ClassVar[int]
    element: str
    xpath: str
    text_content: str
    extra: str
    component: str
    component_props_json: str
    def __init__(self, element: _Optional[str] = ..., xpath: _Optional[str] = ..., text_content: _Optional[str] = ..., extra: _Optional[str] = ..., component: _Optional[str] = ..., component_props_json: _Optional[str] = ...) -> None: ...

class SemSearchToolArgs(_message.Message):
    __slots__ = ("query", "target_directories", "explanation")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TARGET_DIRECTORIES_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    query: str
    target_directories: _containers.RepeatedScalarFieldContainer[str]
    explanation: str
    def __init__(self, query: _Optional[str] = ..., target_directories: _Optional[_Iterable[str]] = ..., explanation: _Optional[str] = ...) -> None: ...

class SemSearchToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: SemSearchToolArgs
    result: SemSearchToolResult
    def __init__(self, args: _Optional[_Union[SemSearchToolArgs, _Mapping]] = ..., result: _Optional[_Union[SemSearchToolResult, _Mapping]] = ...) -> None: ...

class SemSearchToolError(_message.Message):
    __slots__ = ("error_message",)
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    error_message: str
    def __init__(self, error_message: _Optional[str] = ...) -> None: ...

class SemSearchToolResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: SemSearchToolSuccess
    error: SemSearchToolError
    def __init__(self, success: _Optional[_Union[SemSearchToolSuccess, _Mapping]] = ..., error: _Optional[_Union[SemSearchToolError, _Mapping]] = ...) -> None: ...

class SemSearchToolSuccess(_message.Message):
    __slots__ = ("results", "code_results")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    CODE_RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: str
    code_results: _containers.RepeatedCompositeFieldContainer[CodeResult]
    def __init__(self, results: _Optional[str] = ..., code_results: _Optional[_Iterable[_Union[CodeResult, _Mapping]]] = ...) -> None: ...

class SetBlobArgs(_message.Message):
    __slots__ = ("blob_id", "blob_data")
    BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    BLOB_DATA_FIELD_NUMBER: _ClassVar[int]
    blob_id: bytes
    blob_data: bytes
    def __init__(self, blob_id: _Optional[bytes] = ..., blob_data: _Optional[bytes] = ...) -> None: ...

class SetBlobResult(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: Error
    def __init__(self, error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class ShellArgs(_message.Message):
    __slots__ = ("command", "working_directory", "timeout", "tool_call_id", "simple_commands", "has_input_redirect", "has_output_redirect", "parsing_result", "requested_sandbox_policy", "file_output_threshold_bytes", "is_background", "skip_approval", "timeout_behavior", "hard_timeout", "description", "classifier_result", "close_stdin", "output_notification", "smart_mode_approval", "hook_approval_requirement", "conversation_id", "admin_command_denylist", "request_id", "secret_scope_id")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SIMPLE_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    HAS_INPUT_REDIRECT_FIELD_NUMBER: _ClassVar[int]
    HAS_OUTPUT_REDIRECT_FIELD_NUMBER: _ClassVar[int]
    PARSING_RESULT_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    FILE_OUTPUT_THRESHOLD_BYTES_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_BEHAVIOR_FIELD_NUMBER: _ClassVar[int]
    HARD_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIER_RESULT_FIELD_NUMBER: _ClassVar[int]
    CLOSE_STDIN_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    HOOK_APPROVAL_REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    ADMIN_COMMAND_DENYLIST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SECRET_SCOPE_ID_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    timeout: int
    tool_call_id: str
    simple_commands: _containers.RepeatedScalarFieldContainer[str]
    has_input_redirect: bool
    has_output_redirect: bool
    parsing_result: ShellCommandParsingResult
    requested_sandbox_policy: SandboxPolicy
    file_output_threshold_bytes: int
    is_background: bool
    skip_approval: bool
    timeout_behavior: TimeoutBehavior
    hard_timeout: int
    description: str
    classifier_result: CommandClassifierResult
    close_stdin: bool
    output_notification: ShellOutputNotificationConfig
    smart_mode_approval: SmartModeApproval
    hook_approval_requirement: ShellHookApprovalRequirement
    conversation_id: str
    admin_command_denylist: _containers.RepeatedScalarFieldContainer[str]
    request_id: str
    secret_scope_id: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., timeout: _Optional[int] = ..., tool_call_id: _Optional[str] = ..., simple_commands: _Optional[_Iterable[str]] = ..., has_input_redirect: _Optional[bool] = ..., has_output_redirect: _Optional[bool] = ..., parsing_result: _Optional[_Union[ShellCommandParsingResult, _Mapping]] = ..., requested_sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., file_output_threshold_bytes: _Optional[int] = ..., is_background: _Optional[bool] = ..., skip_approval: _Optional[bool] = ..., timeout_behavior: _Optional[_Union[TimeoutBehavior, str]] = ..., hard_timeout: _Optional[int] = ..., description: _Optional[str] = ..., classifier_result: _Optional[_Union[CommandClassifierResult, _Mapping]] = ..., close_stdin: _Optional[bool] = ..., output_notification: _Optional[_Union[ShellOutputNotificationConfig, _Mapping]] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ..., hook_approval_requirement: _Optional[_Union[ShellHookApprovalRequirement, _Mapping]] = ..., conversation_id: _Optional[str] = ..., admin_command_denylist: _Optional[_Iterable[str]] = ..., request_id: _Optional[str] = ..., secret_scope_id: _Optional[str] = ...) -> None: ...

class ShellCommand(_message.Message):
    __slots__ = ("command",)
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    command: str
    def __init__(self, command: _Optional[str] = ...) -> None: ...

class ShellCommandAction(_message.Message):
    __slots__ = ("shell_command", "exec_id")
    SHELL_COMMAND_FIELD_NUMBER: _ClassVar[int]
    EXEC_ID_FIELD_NUMBER: _ClassVar[int]
    shell_command: ShellCommand
    exec_id: str
    def __init__(self, shell_command: _Optional[_Union[ShellCommand, _Mapping]] = ..., exec_id: _Optional[str] = ...) -> None: ...

class ShellCommandParsingResult(_message.Message):
    __slots__ = ("parsing_failed", "executable_commands", "has_redirects", "has_command_substitution", "all_redirects_are_dev_null", "redirects")
    class ExecutableCommand(_message.Message):
        __slots__ = ("name", "args", "full_text")
        NAME_FIELD_NUMBER: _ClassVar[int]
        ARGS_FIELD_NUMBER: _ClassVar[int]
        FULL_TEXT_FIELD_NUMBER: _ClassVar[int]
        name: str
        args: _containers.RepeatedCompositeFieldContainer[ShellCommandParsingResult.ExecutableCommandArg]
        full_text: str
        def __init__(self, name: _Optional[str] = ..., args: _Optional[_Iterable[_Union[ShellCommandParsingResult.ExecutableCommandArg, _Mapping]]] = ..., full_text: _Optional[str] = ...) -> None: ...
    class ExecutableCommandArg(_message.Message):
        __slots__ = ("type", "value")
        TYPE_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        type: str
        value: str
        def __init__(self, type: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class Redirect(_message.Message):
        __slots__ = ("operator", "destination_fds", "target_node_type", "target_text")
        OPERATOR_FIELD_NUMBER: _ClassVar[int]
        DESTINATION_FDS_FIELD_NUMBER: _ClassVar[int]
        TARGET_NODE_TYPE_FIELD_NUMBER: _ClassVar[int]
        TARGET_TEXT_FIELD_NUMBER: _ClassVar[int]
        operator: str
        destination_fds: _containers.RepeatedScalarFieldContainer[int]
        target_node_type: str
        target_text: str
        def __init__(self, operator: _Optional[str] = ..., destination_fds: _Optional[_Iterable[int]] = ..., target_node_type: _Optional[str] = ..., target_text: _Optional[str] = ...) -> None: ...
    PARSING_FAILED_FIELD_NUMBER: _ClassVar[int]
    EXECUTABLE_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    HAS_REDIRECTS_FIELD_NUMBER: _ClassVar[int]
    HAS_COMMAND_SUBSTITUTION_FIELD_NUMBER: _ClassVar[int]
    ALL_REDIRECTS_ARE_DEV_NULL_FIELD_NUMBER: _ClassVar[int]
    REDIRECTS_FIELD_NUMBER: _ClassVar[int]
    parsing_failed: bool
    executable_commands: _containers.RepeatedCompositeFieldContainer[ShellCommandParsingResult.ExecutableCommand]
    has_redirects: bool
    has_command_substitution: bool
    all_redirects_are_dev_null: bool
    redirects: _containers.RepeatedCompositeFieldContainer[ShellCommandParsingResult.Redirect]
    def __init__(self, parsing_failed: _Optional[bool] = ..., executable_commands: _Optional[_Iterable[_Union[ShellCommandParsingResult.ExecutableCommand, _Mapping]]] = ..., has_redirects: _Optional[bool] = ..., has_command_substitution: _Optional[bool] = ..., all_redirects_are_dev_null: _Optional[bool] = ..., redirects: _Optional[_Iterable[_Union[ShellCommandParsingResult.Redirect, _Mapping]]] = ...) -> None: ...

class ShellFailure(_message.Message):
    __slots__ = ("command", "working_directory", "exit_code", "signal", "stdout", "stderr", "execution_time", "output_location", "interleaved_output", "abort_reason", "aborted", "local_execution_time_ms", "output_head", "output_tail", "elided_chars")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_TIME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    INTERLEAVED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    ABORT_REASON_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_HEAD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    ELIDED_CHARS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    exit_code: int
    signal: str
    stdout: str
    stderr: str
    execution_time: int
    output_location: OutputLocation
    interleaved_output: str
    abort_reason: ShellAbortReason
    aborted: bool
    local_execution_time_ms: int
    output_head: str
    output_tail: str
    elided_chars: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., execution_time: _Optional[int] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., interleaved_output: _Optional[str] = ..., abort_reason: _Optional[_Union[ShellAbortReason, str]] = ..., aborted: _Optional[bool] = ..., local_execution_time_ms: _Optional[int] = ..., output_head: _Optional[str] = ..., output_tail: _Optional[str] = ..., elided_chars: _Optional[int] = ...) -> None: ...

class ShellHookApprovalRequirement(_message.Message):
    __slots__ = ("kind", "reason")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[ShellHookApprovalRequirement.Kind]
        KIND_FORCE_PROMPT: _ClassVar[ShellHookApprovalRequirement.Kind]
    KIND_UNSPECIFIED: ShellHookApprovalRequirement.Kind
    KIND_FORCE_PROMPT: ShellHookApprovalRequirement.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    kind: ShellHookApprovalRequirement.Kind
    reason: str
    def __init__(self, kind: _Optional[_Union[ShellHookApprovalRequirement.Kind, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class ShellOutputDeltaUpdate(_message.Message):
    __slots__ = ("stdout", "stderr", "exit", "start")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    stdout: ShellStreamStdout
    stderr: ShellStreamStderr
    exit: ShellStreamExit
    start: ShellStreamStart
    def __init__(self, stdout: _Optional[_Union[ShellStreamStdout, _Mapping]] = ..., stderr: _Optional[_Union[ShellStreamStderr, _Mapping]] = ..., exit: _Optional[_Union[ShellStreamExit, _Mapping]] = ..., start: _Optional[_Union[ShellStreamStart, _Mapping]] = ...) -> None: ...

class ShellOutputNotificationConfig(_message.Message):
    __slots__ = ("pattern", "reason", "debounce", "notification_limit")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DEBOUNCE_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_LIMIT_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    reason: str
    debounce: float
    notification_limit: int
    def __init__(self, pattern: _Optional[str] = ..., reason: _Optional[str] = ..., debounce: _Optional[float] = ..., notification_limit: _Optional[int] = ...) -> None: ...

class ShellPermissionDenied(_message.Message):
    __slots__ = ("command", "working_directory", "error", "is_readonly")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    is_readonly: bool
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class ShellRejected(_message.Message):
    __slots__ = ("command", "working_directory", "reason", "is_readonly")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    reason: str
    is_readonly: bool
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., reason: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class ShellResult(_message.Message):
    __slots__ = ("success", "failure", "timeout", "rejected", "spawn_error", "permission_denied", "sandbox_policy", "is_background", "terminals_folder", "pid")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    SPAWN_ERROR_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    TERMINALS_FOLDER_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    success: ShellSuccess
    failure: ShellFailure
    timeout: ShellTimeout
    rejected: ShellRejected
    spawn_error: ShellSpawnError
    permission_denied: ShellPermissionDenied
    sandbox_policy: SandboxPolicy
    is_background: bool
    terminals_folder: str
    pid: int
    def __init__(self, success: _Optional[_Union[ShellSuccess, _Mapping]] = ..., failure: _Optional[_Union[ShellFailure, _Mapping]] = ..., timeout: _Optional[_Union[ShellTimeout, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., spawn_error: _Optional[_Union[ShellSpawnError, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ..., sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ..., is_background: _Optional[bool] = ..., terminals_folder: _Optional[str] = ..., pid: _Optional[int] = ...) -> None: ...

class ShellSandboxUnsupported(_message.Message):
    __slots__ = ("command", "working_directory", "sandbox_policy_type", "reason", "is_readonly")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_POLICY_TYPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    sandbox_policy_type: str
    reason: str
    is_readonly: bool
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., sandbox_policy_type: _Optional[str] = ..., reason: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class ShellSpawnError(_message.Message):
    __slots__ = ("command", "working_directory", "error")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    error: str
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ShellStream(_message.Message):
    __slots__ = ("stdout", "stderr", "exit", "start", "rejected", "permission_denied", "backgrounded", "hook_context", "sandbox_unsupported")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXIT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    BACKGROUNDED_FIELD_NUMBER: _ClassVar[int]
    HOOK_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    stdout: ShellStreamStdout
    stderr: ShellStreamStderr
    exit: ShellStreamExit
    start: ShellStreamStart
    rejected: ShellRejected
    permission_denied: ShellPermissionDenied
    backgrounded: ShellStreamBackgrounded
    hook_context: ShellStreamHookContext
    sandbox_unsupported: ShellSandboxUnsupported
    def __init__(self, stdout: _Optional[_Union[ShellStreamStdout, _Mapping]] = ..., stderr: _Optional[_Union[ShellStreamStderr, _Mapping]] = ..., exit: _Optional[_Union[ShellStreamExit, _Mapping]] = ..., start: _Optional[_Union[ShellStreamStart, _Mapping]] = ..., rejected: _Optional[_Union[ShellRejected, _Mapping]] = ..., permission_denied: _Optional[_Union[ShellPermissionDenied, _Mapping]] = ..., backgrounded: _Optional[_Union[ShellStreamBackgrounded, _Mapping]] = ..., hook_context: _Optional[_Union[ShellStreamHookContext, _Mapping]] = ..., sandbox_unsupported: _Optional[_Union[ShellSandboxUnsupported, _Mapping]] = ...) -> None: ...

class ShellStreamBackgrounded(_message.Message):
    __slots__ = ("shell_id", "command", "working_directory", "pid", "ms_to_wait", "reason")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    MS_TO_WAIT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    command: str
    working_directory: str
    pid: int
    ms_to_wait: int
    reason: ShellBackgroundReason
    def __init__(self, shell_id: _Optional[int] = ..., command: _Optional[str] = ..., working_directory: _Optional[str] = ..., pid: _Optional[int] = ..., ms_to_wait: _Optional[int] = ..., reason: _Optional[_Union[ShellBackgroundReason, str]] = ...) -> None: ...

class ShellStreamExit(_message.Message):
    __slots__ = ("code", "cwd", "output_location", "aborted", "abort_reason", "local_execution_time_ms")
    CODE_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    ABORT_REASON_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    code: int
    cwd: str
    output_location: OutputLocation
    aborted: bool
    abort_reason: ShellAbortReason
    local_execution_time_ms: int
    def __init__(self, code: _Optional[int] = ..., cwd: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., aborted: _Optional[bool] = ..., abort_reason: _Optional[_Union[ShellAbortReason, str]] = ..., local_execution_time_ms: _Optional[int] = ...) -> None: ...

class ShellStreamHookContext(_message.Message):
    __slots__ = ("hook_additional_contexts",)
    HOOK_ADDITIONAL_CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    hook_additional_contexts: _containers.RepeatedCompositeFieldContainer[HookAdditionalContext]
    def __init__(self, hook_additional_contexts: _Optional[_Iterable[_Union[HookAdditionalContext, _Mapping]]] = ...) -> None: ...

class ShellStreamStart(_message.Message):
    __slots__ = ("sandbox_policy",)
    SANDBOX_POLICY_FIELD_NUMBER: _ClassVar[int]
    sandbox_policy: SandboxPolicy
    def __init__(self, sandbox_policy: _Optional[_Union[SandboxPolicy, _Mapping]] = ...) -> None: ...

class ShellStreamStderr(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ShellStreamStdout(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: str
    def __init__(self, data: _Optional[str] = ...) -> None: ...

class ShellSuccess(_message.Message):
    __slots__ = ("command", "working_directory", "exit_code", "signal", "stdout", "stderr", "execution_time", "output_location", "shell_id", "interleaved_output", "pid", "ms_to_wait", "local_execution_time_ms", "background_reason", "output_head", "output_tail", "elided_chars")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNAL_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_TIME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    INTERLEAVED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    MS_TO_WAIT_FIELD_NUMBER: _ClassVar[int]
    LOCAL_EXECUTION_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_REASON_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_HEAD_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    ELIDED_CHARS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    exit_code: int
    signal: str
    stdout: str
    stderr: str
    execution_time: int
    output_location: OutputLocation
    shell_id: int
    interleaved_output: str
    pid: int
    ms_to_wait: int
    local_execution_time_ms: int
    background_reason: ShellBackgroundReason
    output_head: str
    output_tail: str
    elided_chars: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., exit_code: _Optional[int] = ..., signal: _Optional[str] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., execution_time: _Optional[int] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ..., shell_id: _Optional[int] = ..., interleaved_output: _Optional[str] = ..., pid: _Optional[int] = ..., ms_to_wait: _Optional[int] = ..., local_execution_time_ms: _Optional[int] = ..., background_reason: _Optional[_Union[ShellBackgroundReason, str]] = ..., output_head: _Optional[str] = ..., output_tail: _Optional[str] = ..., elided_chars: _Optional[int] = ...) -> None: ...

class ShellTimeout(_message.Message):
    __slots__ = ("command", "working_directory", "timeout_ms")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    command: str
    working_directory: str
    timeout_ms: int
    def __init__(self, command: _Optional[str] = ..., working_directory: _Optional[str] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class ShellToolCall(_message.Message):
    __slots__ = ("args", "result", "description")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    args: ShellArgs
    result: ShellResult
    description: str
    def __init__(self, args: _Optional[_Union[ShellArgs, _Mapping]] = ..., result: _Optional[_Union[ShellResult, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...

class ShellToolCallDelta(_message.Message):
    __slots__ = ("stdout", "stderr")
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    stdout: ShellToolCallStdoutDelta
    stderr: ShellToolCallStderrDelta
    def __init__(self, stdout: _Optional[_Union[ShellToolCallStdoutDelta, _Mapping]] = ..., stderr: _Optional[_Union[ShellToolCallStderrDelta, _Mapping]] = ...) -> None: ...

class ShellToolCallStderrDelta(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: str
    def __init__(self, content: _Optional[str] = ...) -> None: ...

class ShellToolCallStdoutDelta(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: str
    def __init__(self, content: _Optional[str] = ...) -> None: ...

class SkillDescriptor(_message.Message):
    __slots__ = ("name", "description", "folder_path", "enabled", "parse_error", "readme_file_path", "package_type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FOLDER_PATH_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    PARSE_ERROR_FIELD_NUMBER: _ClassVar[int]
    README_FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    PACKAGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    folder_path: str
    enabled: bool
    parse_error: str
    readme_file_path: str
    package_type: PackageType
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., folder_path: _Optional[str] = ..., enabled: _Optional[bool] = ..., parse_error: _Optional[str] = ..., readme_file_path: _Optional[str] = ..., package_type: _Optional[_Union[PackageType, str]] = ...) -> None: ...

class SkillOptions(_message.Message):
    __slots__ = ("skill_descriptors",)
    SKILL_DESCRIPTORS_FIELD_NUMBER: _ClassVar[int]
    skill_descriptors: _containers.RepeatedCompositeFieldContainer[SkillDescriptor]
    def __init__(self, skill_descriptors: _Optional[_Iterable[_Union[SkillDescriptor, _Mapping]]] = ...) -> None: ...

class SmartModeApproval(_message.Message):
    __slots__ = ("request_id", "reason")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    reason: str
    def __init__(self, request_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class SpanContext(_message.Message):
    __slots__ = ("trace_id", "span_id", "trace_flags", "trace_state")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_ID_FIELD_NUMBER: _ClassVar[int]
    TRACE_FLAGS_FIELD_NUMBER: _ClassVar[int]
    TRACE_STATE_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    span_id: str
    trace_flags: int
    trace_state: str
    def __init__(self, trace_id: _Optional[str] = ..., span_id: _Optional[str] = ..., trace_flags: _Optional[int] = ..., trace_state: _Optional[str] = ...) -> None: ...

class StackTrace(_message.Message):
    __slots__ = ("call_frames", "raw_stack_trace")
    CALL_FRAMES_FIELD_NUMBER: _ClassVar[int]
    RAW_STACK_TRACE_FIELD_NUMBER: _ClassVar[int]
    call_frames: _containers.RepeatedCompositeFieldContainer[CallFrame]
    raw_stack_trace: str
    def __init__(self, call_frames: _Optional[_Iterable[_Union[CallFrame, _Mapping]]] = ..., raw_stack_trace: _Optional[str] = ...) -> None: ...

class StartPlanAction(_message.Message):
    __slots__ = ("user_message", "request_context", "is_spec")
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    IS_SPEC_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    request_context: RequestContext
    is_spec: bool
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ..., request_context: _Optional[_Union[RequestContext, _Mapping]] = ..., is_spec: _Optional[bool] = ...) -> None: ...

class StepCompletedUpdate(_message.Message):
    __slots__ = ("step_id", "step_duration_ms")
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    step_id: int
    step_duration_ms: int
    def __init__(self, step_id: _Optional[int] = ..., step_duration_ms: _Optional[int] = ...) -> None: ...

class StepStartedUpdate(_message.Message):
    __slots__ = ("step_id",)
    STEP_ID_FIELD_NUMBER: _ClassVar[int]
    step_id: int
    def __init__(self, step_id: _Optional[int] = ...) -> None: ...

class StepTiming(_message.Message):
    __slots__ = ("duration_ms", "timestamp_ms")
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    timestamp_ms: int
    def __init__(self, duration_ms: _Optional[int] = ..., timestamp_ms: _Optional[int] = ...) -> None: ...

class SubagentArgs(_message.Message):
    __slots__ = ("tool_call_id", "subagent_type", "model_id", "prompt", "readonly", "resume_agent_id", "run_in_background", "parent_conversation_id", "interrupt", "mode", "fork_agent_id", "root_parent_conversation_id", "selected_context", "direct_meta_parent_child_subagent", "environment", "cloud_base_branch", "model_parameters")
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    READONLY_FIELD_NUMBER: _ClassVar[int]
    RESUME_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_IN_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    PARENT_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FORK_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROOT_PARENT_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    SELECTED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    DIRECT_META_PARENT_CHILD_SUBAGENT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    CLOUD_BASE_BRANCH_FIELD_NUMBER: _ClassVar[int]
    MODEL_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    tool_call_id: str
    subagent_type: str
    model_id: str
    prompt: str
    readonly: bool
    resume_agent_id: str
    run_in_background: bool
    parent_conversation_id: str
    interrupt: bool
    mode: TaskMode
    fork_agent_id: str
    root_parent_conversation_id: str
    selected_context: SelectedContext
    direct_meta_parent_child_subagent: bool
    environment: SubagentExecutionEnvironment
    cloud_base_branch: str
    model_parameters: _containers.RepeatedCompositeFieldContainer[RequestedModel.ModelParameterValue]
    def __init__(self, tool_call_id: _Optional[str] = ..., subagent_type: _Optional[str] = ..., model_id: _Optional[str] = ..., prompt: _Optional[str] = ..., readonly: _Optional[bool] = ..., resume_agent_id: _Optional[str] = ..., run_in_background: _Optional[bool] = ..., parent_conversation_id: _Optional[str] = ..., interrupt: _Optional[bool] = ..., mode: _Optional[_Union[TaskMode, str]] = ..., fork_agent_id: _Optional[str] = ..., root_parent_conversation_id: _Optional[str] = ..., selected_context: _Optional[_Union[SelectedContext, _Mapping]] = ..., direct_meta_parent_child_subagent: _Optional[bool] = ..., environment: _Optional[_Union[SubagentExecutionEnvironment, str]] = ..., cloud_base_branch: _Optional[str] = ..., model_parameters: _Optional[_Iterable[_Union[RequestedModel.ModelParameterValue, _Mapping]]] = ...) -> None: ...

class SubagentError(_message.Message):
    __slots__ = ("agent_id", "error")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    error: str
    def __init__(self, agent_id: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class SubagentModelOverride(_message.Message):
    __slots__ = ("subagent_type", "model", "inherit", "disabled")
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    INHERIT_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    subagent_type: str
    model: RequestedModel
    inherit: bool
    disabled: bool
    def __init__(self, subagent_type: _Optional[str] = ..., model: _Optional[_Union[RequestedModel, _Mapping]] = ..., inherit: _Optional[bool] = ..., disabled: _Optional[bool] = ...) -> None: ...

class SubagentPersistedState(_message.Message):
    __slots__ = ("conversation_state", "created_timestamp_ms", "last_used_timestamp_ms", "subagent_type", "model_id", "environment")
    CONVERSATION_STATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    conversation_state: ConversationStateStructure
    created_timestamp_ms: int
    last_used_timestamp_ms: int
    subagent_type: SubagentType
    model_id: str
    environment: SubagentExecutionEnvironment
    def __init__(self, conversation_state: _Optional[_Union[ConversationStateStructure, _Mapping]] = ..., created_timestamp_ms: _Optional[int] = ..., last_used_timestamp_ms: _Optional[int] = ..., subagent_type: _Optional[_Union[SubagentType, _Mapping]] = ..., model_id: _Optional[str] = ..., environment: _Optional[_Union[SubagentExecutionEnvironment, str]] = ...) -> None: ...

class SubagentResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: SubagentSuccess
    error: SubagentError
    def __init__(self, success: _Optional[_Union[SubagentSuccess, _Mapping]] = ..., error: _Optional[_Union[SubagentError, _Mapping]] = ...) -> None: ...

class SubagentSuccess(_message.Message):
    __slots__ = ("agent_id", "final_message", "tool_call_count", "background_reason", "transcript_path")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    FINAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_COUNT_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_REASON_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_PATH_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    final_message: str
    tool_call_count: int
    background_reason: SubagentBackgroundReason
    transcript_path: str
    def __init__(self, agent_id: _Optional[str] = ..., final_message: _Optional[str] = ..., tool_call_count: _Optional[int] = ..., background_reason: _Optional[_Union[SubagentBackgroundReason, str]] = ..., transcript_path: _Optional[str] = ...) -> None: ...

class SubagentType(_message.Message):
    __slots__ = ("unspecified", "computer_use", "custom", "explore", "media_review", "bash", "browser_use", "shell", "vm_setup_helper", "debug", "cursor_guide", "watch_video")
    UNSPECIFIED_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_USE_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    EXPLORE_FIELD_NUMBER: _ClassVar[int]
    MEDIA_REVIEW_FIELD_NUMBER: _ClassVar[int]
    BASH_FIELD_NUMBER: _ClassVar[int]
    BROWSER_USE_FIELD_NUMBER: _ClassVar[int]
    SHELL_FIELD_NUMBER: _ClassVar[int]
    VM_SETUP_HELPER_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    CURSOR_GUIDE_FIELD_NUMBER: _ClassVar[int]
    WATCH_VIDEO_FIELD_NUMBER: _ClassVar[int]
    unspecified: SubagentTypeUnspecified
    computer_use: SubagentTypeComputerUse
    custom: SubagentTypeCustom
    explore: SubagentTypeExplore
    media_review: SubagentTypeMediaReview
    bash: SubagentTypeBash
    browser_use: SubagentTypeBrowserUse
    shell: SubagentTypeShell
    vm_setup_helper: SubagentTypeVmSetupHelper
    debug: SubagentTypeDebug
    cursor_guide: SubagentTypeCursorGuide
    watch_video: SubagentTypeWatchVideo
    def __init__(self, unspecified: _Optional[_Union[SubagentTypeUnspecified, _Mapping]] = ..., computer_use: _Optional[_Union[SubagentTypeComputerUse, _Mapping]] = ..., custom: _Optional[_Union[SubagentTypeCustom, _Mapping]] = ..., explore: _Optional[_Union[SubagentTypeExplore, _Mapping]] = ..., media_review: _Optional[_Union[SubagentTypeMediaReview, _Mapping]] = ..., bash: _Optional[_Union[SubagentTypeBash, _Mapping]] = ..., browser_use: _Optional[_Union[SubagentTypeBrowserUse, _Mapping]] = ..., shell: _Optional[_Union[SubagentTypeShell, _Mapping]] = ..., vm_setup_helper: _Optional[_Union[SubagentTypeVmSetupHelper, _Mapping]] = ..., debug: _Optional[_Union[SubagentTypeDebug, _Mapping]] = ..., cursor_guide: _Optional[_Union[SubagentTypeCursorGuide, _Mapping]] = ..., watch_video: _Optional[_Union[SubagentTypeWatchVideo, _Mapping]] = ...) -> None: ...

class SubagentTypeBash(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeBrowserUse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeComputerUse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeCursorGuide(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeCustom(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SubagentTypeDebug(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeExplore(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeMediaReview(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeShell(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeUnspecified(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeVmSetupHelper(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubagentTypeWatchVideo(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SubmittedCustomMode(_message.Message):
    __slots__ = ("id", "label", "source", "source_path", "source_hash", "managed_skill_id", "plugin_id", "plugin_snapshot_token")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_PATH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_HASH_FIELD_NUMBER: _ClassVar[int]
    MANAGED_SKILL_ID_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    PLUGIN_SNAPSHOT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    source: CustomModeSource
    source_path: str
    source_hash: str
    managed_skill_id: str
    plugin_id: str
    plugin_snapshot_token: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ..., source: _Optional[_Union[CustomModeSource, str]] = ..., source_path: _Optional[str] = ..., source_hash: _Optional[str] = ..., managed_skill_id: _Optional[str] = ..., plugin_id: _Optional[str] = ..., plugin_snapshot_token: _Optional[str] = ...) -> None: ...

class SubmittedExitedCustomMode(_message.Message):
    __slots__ = ("id", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class SummarizeAction(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SummaryCompletedUpdate(_message.Message):
    __slots__ = ("hook_message", "failed")
    HOOK_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    hook_message: str
    failed: bool
    def __init__(self, hook_message: _Optional[str] = ..., failed: _Optional[bool] = ...) -> None: ...

class SummaryStartedUpdate(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SummaryUpdate(_message.Message):
    __slots__ = ("summary",)
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    summary: str
    def __init__(self, summary: _Optional[str] = ...) -> None: ...

class SwitchModeArgs(_message.Message):
    __slots__ = ("target_mode_id", "explanation", "tool_call_id")
    TARGET_MODE_ID_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    target_mode_id: str
    explanation: str
    tool_call_id: str
    def __init__(self, target_mode_id: _Optional[str] = ..., explanation: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class SwitchModeError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class SwitchModeRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class SwitchModeRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: SwitchModeArgs
    def __init__(self, args: _Optional[_Union[SwitchModeArgs, _Mapping]] = ...) -> None: ...

class SwitchModeRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    class Approved(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Rejected(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: SwitchModeRequestResponse.Approved
    rejected: SwitchModeRequestResponse.Rejected
    def __init__(self, approved: _Optional[_Union[SwitchModeRequestResponse.Approved, _Mapping]] = ..., rejected: _Optional[_Union[SwitchModeRequestResponse.Rejected, _Mapping]] = ...) -> None: ...

class SwitchModeResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: SwitchModeSuccess
    error: SwitchModeError
    rejected: SwitchModeRejected
    def __init__(self, success: _Optional[_Union[SwitchModeSuccess, _Mapping]] = ..., error: _Optional[_Union[SwitchModeError, _Mapping]] = ..., rejected: _Optional[_Union[SwitchModeRejected, _Mapping]] = ...) -> None: ...

class SwitchModeSuccess(_message.Message):
    __slots__ = ("from_mode_id", "to_mode_id")
    FROM_MODE_ID_FIELD_NUMBER: _ClassVar[int]
    TO_MODE_ID_FIELD_NUMBER: _ClassVar[int]
    from_mode_id: str
    to_mode_id: str
    def __init__(self, from_mode_id: _Optional[str] = ..., to_mode_id: _Optional[str] = ...) -> None: ...

class SwitchModeToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: SwitchModeArgs
    result: SwitchModeResult
    def __init__(self, args: _Optional[_Union[SwitchModeArgs, _Mapping]] = ..., result: _Optional[_Union[SwitchModeResult, _Mapping]] = ...) -> None: ...

class TaskArgs(_message.Message):
    __slots__ = ("description", "prompt", "subagent_type", "model", "resume", "agent_id", "attachments", "mode", "responding_to_message_ids", "environment")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    RESPONDING_TO_MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    description: str
    prompt: str
    subagent_type: SubagentType
    model: str
    resume: str
    agent_id: str
    attachments: _containers.RepeatedScalarFieldContainer[str]
    mode: TaskMode
    responding_to_message_ids: _containers.RepeatedScalarFieldContainer[str]
    environment: SubagentExecutionEnvironment
    def __init__(self, description: _Optional[str] = ..., prompt: _Optional[str] = ..., subagent_type: _Optional[_Union[SubagentType, _Mapping]] = ..., model: _Optional[str] = ..., resume: _Optional[str] = ..., agent_id: _Optional[str] = ..., attachments: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[TaskMode, str]] = ..., responding_to_message_ids: _Optional[_Iterable[str]] = ..., environment: _Optional[_Union[SubagentExecutionEnvironment, str]] = ...) -> None: ...

class TaskError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class TaskResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: TaskSuccess
    error: TaskError
    def __init__(self, success: _Optional[_Union[TaskSuccess, _Mapping]] = ..., error: _Optional[_Union[TaskError, _Mapping]] = ...) -> None: ...

class TaskSuccess(_message.Message):
    __slots__ = ("conversation_steps", "agent_id", "is_background", "duration_ms", "result_suffix", "background_reason", "transcript_path")
    CONVERSATION_STEPS_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    IS_BACKGROUND_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    RESULT_SUFFIX_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_REASON_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_PATH_FIELD_NUMBER: _ClassVar[int]
    conversation_steps: _containers.RepeatedCompositeFieldContainer[ConversationStep]
    agent_id: str
    is_background: bool
    duration_ms: int
    result_suffix: str
    background_reason: SubagentBackgroundReason
    transcript_path: str
    def __init__(self, conversation_steps: _Optional[_Iterable[_Union[ConversationStep, _Mapping]]] = ..., agent_id: _Optional[str] = ..., is_background: _Optional[bool] = ..., duration_ms: _Optional[int] = ..., result_suffix: _Optional[str] = ..., background_reason: _Optional[_Union[SubagentBackgroundReason, str]] = ..., transcript_path: _Optional[str] = ...) -> None: ...

class TaskToolCall(_message.Message):
    __slots__ = ("args", "result", "cloud_agent_bc_id")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CLOUD_AGENT_BC_ID_FIELD_NUMBER: _ClassVar[int]
    args: TaskArgs
    result: TaskResult
    cloud_agent_bc_id: str
    def __init__(self, args: _Optional[_Union[TaskArgs, _Mapping]] = ..., result: _Optional[_Union[TaskResult, _Mapping]] = ..., cloud_agent_bc_id: _Optional[str] = ...) -> None: ...

class TaskToolCallDelta(_message.Message):
    __slots__ = ("interaction_update",)
    INTERACTION_UPDATE_FIELD_NUMBER: _ClassVar[int]
    interaction_update: InteractionUpdate
    def __init__(self, interaction_update: _Optional[_Union[InteractionUpdate, _Mapping]] = ...) -> None: ...

class TerminalMetadata(_message.Message):
    __slots__ = ("cwd", "last_commands", "last_modified_ms", "current_command")
    class Command(_message.Message):
        __slots__ = ("command", "exit_code", "timestamp_ms", "duration_ms")
        COMMAND_FIELD_NUMBER: _ClassVar[int]
        EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
        TIMESTAMP_MS_FIELD_NUMBER: _ClassVar[int]
        DURATION_MS_FIELD_NUMBER: _ClassVar[int]
        command: str
        exit_code: int
        timestamp_ms: int
        duration_ms: int
        def __init__(self, command: _Optional[str] = ..., exit_code: _Optional[int] = ..., timestamp_ms: _Optional[int] = ..., duration_ms: _Optional[int] = ...) -> None: ...
    CWD_FIELD_NUMBER: _ClassVar[int]
    LAST_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_MS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_COMMAND_FIELD_NUMBER: _ClassVar[int]
    cwd: str
    last_commands: _containers.RepeatedCompositeFieldContainer[TerminalMetadata.Command]
    last_modified_ms: int
    current_command: TerminalMetadata.Command
    def __init__(self, cwd: _Optional[str] = ..., last_commands: _Optional[_Iterable[_Union[TerminalMetadata.Command, _Mapping]]] = ..., last_modified_ms: _Optional[int] = ..., current_command: _Optional[_Union[TerminalMetadata.Command, _Mapping]] = ...) -> None: ...

class TextDeltaUpdate(_message.Message):
    __slots__ = ("text", "is_server_notice")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IS_SERVER_NOTICE_FIELD_NUMBER: _ClassVar[int]
    text: str
    is_server_notice: bool
    def __init__(self, text: _Optional[str] = ..., is_server_notice: _Optional[bool] = ...) -> None: ...

class ThinkingCompletedUpdate(_message.Message):
    __slots__ = ("thinking_duration_ms",)
    THINKING_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    thinking_duration_ms: int
    def __init__(self, thinking_duration_ms: _Optional[int] = ...) -> None: ...

class ThinkingDeltaUpdate(_message.Message):
    __slots__ = ("text", "thinking_style")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    THINKING_STYLE_FIELD_NUMBER: _ClassVar[int]
    text: str
    thinking_style: ThinkingStyle
    def __init__(self, text: _Optional[str] = ..., thinking_style: _Optional[_Union[ThinkingStyle, str]] = ...) -> None: ...

class ThinkingDetails(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TodoItem(_message.Message):
    __slots__ = ("id", "content", "status", "created_at", "updated_at", "dependencies")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: str
    status: TodoStatus
    created_at: int
    updated_at: int
    dependencies: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., content: _Optional[str] = ..., status: _Optional[_Union[TodoStatus, str]] = ..., created_at: _Optional[int] = ..., updated_at: _Optional[int] = ..., dependencies: _Optional[_Iterable[str]] = ...) -> None: ...

class TokenDeltaUpdate(_message.Message):
    __slots__ = ("tokens",)
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    tokens: int
    def __init__(self, tokens: _Optional[int] = ...) -> None: ...

class ToolCallCompletedUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ToolCallDelta(_message.Message):
    __slots__ = ("shell_tool_call_delta", "task_tool_call_delta", "edit_tool_call_delta", "replace_env_tool_call_delta")
    SHELL_TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    TASK_TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    EDIT_TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    REPLACE_ENV_TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    shell_tool_call_delta: ShellToolCallDelta
    task_tool_call_delta: TaskToolCallDelta
    edit_tool_call_delta: EditToolCallDelta
    replace_env_tool_call_delta: ReplaceEnvToolCallDelta
    def __init__(self, shell_tool_call_delta: _Optional[_Union[ShellToolCallDelta, _Mapping]] = ..., task_tool_call_delta: _Optional[_Union[TaskToolCallDelta, _Mapping]] = ..., edit_tool_call_delta: _Optional[_Union[EditToolCallDelta, _Mapping]] = ..., replace_env_tool_call_delta: _Optional[_Union[ReplaceEnvToolCallDelta, _Mapping]] = ...) -> None: ...

class ToolCallDeltaUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call_delta", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_DELTA_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call_delta: ToolCallDelta
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call_delta: _Optional[_Union[ToolCallDelta, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class ToolCallStartedUpdate(_message.Message):
    __slots__ = ("call_id", "tool_call", "model_call_id")
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    tool_call: ToolCall
    model_call_id: str
    def __init__(self, call_id: _Optional[str] = ..., tool_call: _Optional[_Union[ToolCall, _Mapping]] = ..., model_call_id: _Optional[str] = ...) -> None: ...

class TriggeringUserInfo(_message.Message):
    __slots__ = ("auth_id", "user_id")
    AUTH_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    auth_id: str
    user_id: int
    def __init__(self, auth_id: _Optional[str] = ..., user_id: _Optional[int] = ...) -> None: ...

class TruncatedToolCall(_message.Message):
    __slots__ = ("original_step_blob_id", "args", "result")
    ORIGINAL_STEP_BLOB_ID_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    original_step_blob_id: bytes
    args: TruncatedToolCallArgs
    result: TruncatedToolCallResult
    def __init__(self, original_step_blob_id: _Optional[bytes] = ..., args: _Optional[_Union[TruncatedToolCallArgs, _Mapping]] = ..., result: _Optional[_Union[TruncatedToolCallResult, _Mapping]] = ...) -> None: ...

class TruncatedToolCallArgs(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TruncatedToolCallError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class TruncatedToolCallResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: TruncatedToolCallSuccess
    error: TruncatedToolCallError
    def __init__(self, success: _Optional[_Union[TruncatedToolCallSuccess, _Mapping]] = ..., error: _Optional[_Union[TruncatedToolCallError, _Mapping]] = ...) -> None: ...

class TruncatedToolCallSuccess(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TurnEndedUpdate(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_READ_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASONING_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cache_read_tokens: _Optional[int] = ..., cache_write_tokens: _Optional[int] = ..., reasoning_tokens: _Optional[int] = ...) -> None: ...

class UpdateTodosArgs(_message.Message):
    __slots__ = ("todos", "merge")
    TODOS_FIELD_NUMBER: _ClassVar[int]
    MERGE_FIELD_NUMBER: _ClassVar[int]
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    merge: bool
    def __init__(self, todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ..., merge: _Optional[bool] = ...) -> None: ...

class UpdateTodosError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class UpdateTodosResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: UpdateTodosSuccess
    error: UpdateTodosError
    def __init__(self, success: _Optional[_Union[UpdateTodosSuccess, _Mapping]] = ..., error: _Optional[_Union[UpdateTodosError, _Mapping]] = ...) -> None: ...

class UpdateTodosSuccess(_message.Message):
    __slots__ = ("todos", "total_count", "was_merge")
    TODOS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    WAS_MERGE_FIELD_NUMBER: _ClassVar[int]
    todos: _containers.RepeatedCompositeFieldContainer[TodoItem]
    total_count: int
    was_merge: bool
    def __init__(self, todos: _Optional[_Iterable[_Union[TodoItem, _Mapping]]] = ..., total_count: _Optional[int] = ..., was_merge: _Optional[bool] = ...) -> None: ...

class UpdateTodosToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: UpdateTodosArgs
    result: UpdateTodosResult
    def __init__(self, args: _Optional[_Union[UpdateTodosArgs, _Mapping]] = ..., result: _Optional[_Union[UpdateTodosResult, _Mapping]] = ...) -> None: ...

class UserMessageAppendedUpdate(_message.Message):
    __slots__ = ("user_message",)
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    user_message: UserMessage
    def __init__(self, user_message: _Optional[_Union[UserMessage, _Mapping]] = ...) -> None: ...

class WebFetchArgs(_message.Message):
    __slots__ = ("url", "tool_call_id")
    URL_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    url: str
    tool_call_id: str
    def __init__(self, url: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class WebFetchError(_message.Message):
    __slots__ = ("url", "error")
    URL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    url: str
    error: str
    def __init__(self, url: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class WebFetchRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class WebFetchRequestQuery(_message.Message):
    __slots__ = ("args", "skip_approval", "smart_mode_approval")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    SKIP_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    SMART_MODE_APPROVAL_FIELD_NUMBER: _ClassVar[int]
    args: WebFetchArgs
    skip_approval: bool
    smart_mode_approval: SmartModeApproval
    def __init__(self, args: _Optional[_Union[WebFetchArgs, _Mapping]] = ..., skip_approval: _Optional[bool] = ..., smart_mode_approval: _Optional[_Union[SmartModeApproval, _Mapping]] = ...) -> None: ...

class WebFetchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    class Approved(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Rejected(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: WebFetchRequestResponse.Approved
    rejected: WebFetchRequestResponse.Rejected
    def __init__(self, approved: _Optional[_Union[WebFetchRequestResponse.Approved, _Mapping]] = ..., rejected: _Optional[_Union[WebFetchRequestResponse.Rejected, _Mapping]] = ...) -> None: ...

class WebFetchResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: WebFetchSuccess
    error: WebFetchError
    rejected: WebFetchRejected
    def __init__(self, success: _Optional[_Union[WebFetchSuccess, _Mapping]] = ..., error: _Optional[_Union[WebFetchError, _Mapping]] = ..., rejected: _Optional[_Union[WebFetchRejected, _Mapping]] = ...) -> None: ...

class WebFetchSuccess(_message.Message):
    __slots__ = ("url", "markdown", "output_location")
    URL_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    url: str
    markdown: str
    output_location: OutputLocation
    def __init__(self, url: _Optional[str] = ..., markdown: _Optional[str] = ..., output_location: _Optional[_Union[OutputLocation, _Mapping]] = ...) -> None: ...

class WebFetchToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: WebFetchArgs
    result: WebFetchResult
    def __init__(self, args: _Optional[_Union[WebFetchArgs, _Mapping]] = ..., result: _Optional[_Union[WebFetchResult, _Mapping]] = ...) -> None: ...

class WebSearchArgs(_message.Message):
    __slots__ = ("search_term", "tool_call_id")
    SEARCH_TERM_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    search_term: str
    tool_call_id: str
    def __init__(self, search_term: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class WebSearchError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class WebSearchReference(_message.Message):
    __slots__ = ("title", "url", "chunk")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    title: str
    url: str
    chunk: str
    def __init__(self, title: _Optional[str] = ..., url: _Optional[str] = ..., chunk: _Optional[str] = ...) -> None: ...

class WebSearchRejected(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class WebSearchRequestQuery(_message.Message):
    __slots__ = ("args",)
    ARGS_FIELD_NUMBER: _ClassVar[int]
    args: WebSearchArgs
    def __init__(self, args: _Optional[_Union[WebSearchArgs, _Mapping]] = ...) -> None: ...

class WebSearchRequestResponse(_message.Message):
    __slots__ = ("approved", "rejected")
    class Approved(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Rejected(_message.Message):
        __slots__ = ("reason",)
        REASON_FIELD_NUMBER: _ClassVar[int]
        reason: str
        def __init__(self, reason: _Optional[str] = ...) -> None: ...
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    approved: WebSearchRequestResponse.Approved
    rejected: WebSearchRequestResponse.Rejected
    def __init__(self, approved: _Optional[_Union[WebSearchRequestResponse.Approved, _Mapping]] = ..., rejected: _Optional[_Union[WebSearchRequestResponse.Rejected, _Mapping]] = ...) -> None: ...

class WebSearchResult(_message.Message):
    __slots__ = ("success", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: WebSearchSuccess
    error: WebSearchError
    rejected: WebSearchRejected
    def __init__(self, success: _Optional[_Union[WebSearchSuccess, _Mapping]] = ..., error: _Optional[_Union[WebSearchError, _Mapping]] = ..., rejected: _Optional[_Union[WebSearchRejected, _Mapping]] = ...) -> None: ...

class WebSearchSuccess(_message.Message):
    __slots__ = ("references",)
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    references: _containers.RepeatedCompositeFieldContainer[WebSearchReference]
    def __init__(self, references: _Optional[_Iterable[_Union[WebSearchReference, _Mapping]]] = ...) -> None: ...

class WebSearchToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: WebSearchArgs
    result: WebSearchResult
    def __init__(self, args: _Optional[_Union[WebSearchArgs, _Mapping]] = ..., result: _Optional[_Union[WebSearchResult, _Mapping]] = ...) -> None: ...

class WriteArgs(_message.Message):
    __slots__ = ("path", "file_text", "tool_call_id", "return_file_content_after_write", "file_bytes", "encoding_hint")
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_FILE_CONTENT_AFTER_WRITE_FIELD_NUMBER: _ClassVar[int]
    FILE_BYTES_FIELD_NUMBER: _ClassVar[int]
    ENCODING_HINT_FIELD_NUMBER: _ClassVar[int]
    path: str
    file_text: str
    tool_call_id: str
    return_file_content_after_write: bool
    file_bytes: bytes
    encoding_hint: str
    def __init__(self, path: _Optional[str] = ..., file_text: _Optional[str] = ..., tool_call_id: _Optional[str] = ..., return_file_content_after_write: _Optional[bool] = ..., file_bytes: _Optional[bytes] = ..., encoding_hint: _Optional[str] = ...) -> None: ...

class WriteError(_message.Message):
    __slots__ = ("path", "error")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    path: str
    error: str
    def __init__(self, path: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class WriteNoSpace(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class WritePermissionDenied(_message.Message):
    __slots__ = ("path", "directory", "operation", "error", "is_readonly")
    PATH_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_READONLY_FIELD_NUMBER: _ClassVar[int]
    path: str
    directory: str
    operation: str
    error: str
    is_readonly: bool
    def __init__(self, path: _Optional[str] = ..., directory: _Optional[str] = ..., operation: _Optional[str] = ..., error: _Optional[str] = ..., is_readonly: _Optional[bool] = ...) -> None: ...

class WriteRejected(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class WriteResult(_message.Message):
    __slots__ = ("success", "permission_denied", "no_space", "error", "rejected")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_DENIED_FIELD_NUMBER: _ClassVar[int]
    NO_SPACE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    success: WriteSuccess
    permission_denied: WritePermissionDenied
    no_space: WriteNoSpace
    error: WriteError
    rejected: WriteRejected
    def __init__(self, success: _Optional[_Union[WriteSuccess, _Mapping]] = ..., permission_denied: _Optional[_Union[WritePermissionDenied, _Mapping]] = ..., no_space: _Optional[_Union[WriteNoSpace, _Mapping]] = ..., error: _Optional[_Union[WriteError, _Mapping]] = ..., rejected: _Optional[_Union[WriteRejected, _Mapping]] = ...) -> None: ...

class WriteShellStdinArgs(_message.Message):
    __slots__ = ("shell_id", "chars")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    CHARS_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    chars: str
    def __init__(self, shell_id: _Optional[int] = ..., chars: _Optional[str] = ...) -> None: ...

class WriteShellStdinError(_message.Message):
    __slots__ = ("error",)
    ERROR_FIELD_NUMBER: _ClassVar[int]
    error: str
    def __init__(self, error: _Optional[str] = ...) -> None: ...

class WriteShellStdinResult(_message.Message):
    __slots__ = ("success", "error")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    success: WriteShellStdinSuccess
    error: WriteShellStdinError
    def __init__(self, success: _Optional[_Union[WriteShellStdinSuccess, _Mapping]] = ..., error: _Optional[_Union[WriteShellStdinError, _Mapping]] = ...) -> None: ...

class WriteShellStdinSuccess(_message.Message):
    __slots__ = ("shell_id", "terminal_file_length_before_input_written")
    SHELL_ID_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FILE_LENGTH_BEFORE_INPUT_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    shell_id: int
    terminal_file_length_before_input_written: int
    def __init__(self, shell_id: _Optional[int] = ..., terminal_file_length_before_input_written: _Optional[int] = ...) -> None: ...

class WriteShellStdinToolCall(_message.Message):
    __slots__ = ("args", "result")
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: WriteShellStdinArgs
    result: WriteShellStdinResult
    def __init__(self, args: _Optional[_Union[WriteShellStdinArgs, _Mapping]] = ..., result: _Optional[_Union[WriteShellStdinResult, _Mapping]] = ...) -> None: ...

class WriteSuccess(_message.Message):
    __slots__ = ("path", "lines_created", "file_size", "file_content_after_write")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINES_CREATED_FIELD_NUMBER: _ClassVar[int]
    FILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    FILE_CONTENT_AFTER_WRITE_FIELD_NUMBER: _ClassVar[int]
    path: str
    lines_created: int
    file_size: int
    file_content_after_write: str
    def __init__(self, path: _Optional[str] = ..., lines_created: _Optional[int] = ..., file_size: _Optional[int] = ..., file_content_after_write: _Optional[str] = ...) -> None: ...
