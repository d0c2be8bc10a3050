# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AvailableModelsScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AVAILABLE_MODELS_SCOPE_UNSPECIFIED: _ClassVar[AvailableModelsScope]
    AVAILABLE_MODELS_SCOPE_USER_AVAILABLE: _ClassVar[AvailableModelsScope]
    AVAILABLE_MODELS_SCOPE_AUTOMATIONS: _ClassVar[AvailableModelsScope]
    AVAILABLE_MODELS_SCOPE_ADMIN_SETTINGS_ALL_APPLICATION_MODELS: _ClassVar[AvailableModelsScope]
AVAILABLE_MODELS_SCOPE_UNSPECIFIED: AvailableModelsScope
AVAILABLE_MODELS_SCOPE_USER_AVAILABLE: AvailableModelsScope
AVAILABLE_MODELS_SCOPE_AUTOMATIONS: AvailableModelsScope
AVAILABLE_MODELS_SCOPE_ADMIN_SETTINGS_ALL_APPLICATION_MODELS: AvailableModelsScope

class AvailableModelsRequest(_message.Message):
    __slots__ = ("is_nightly", "include_long_context_models", "exclude_max_named_models", "additional_model_names", "use_model_parameters", "include_hidden_models", "do_not_use_markdown", "variants_will_be_shown_in_exploded_list", "for_automations", "scope", "use_react_model_picker", "use_cloud_agent_effort_modes", "admin_settings_group_public_id", "byok_enabled")
    IS_NIGHTLY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_LONG_CONTEXT_MODELS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_MAX_NAMED_MODELS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_MODEL_NAMES_FIELD_NUMBER: _ClassVar[int]
    USE_MODEL_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HIDDEN_MODELS_FIELD_NUMBER: _ClassVar[int]
    DO_NOT_USE_MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_WILL_BE_SHOWN_IN_EXPLODED_LIST_FIELD_NUMBER: _ClassVar[int]
    FOR_AUTOMATIONS_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    USE_REACT_MODEL_PICKER_FIELD_NUMBER: _ClassVar[int]
    USE_CLOUD_AGENT_EFFORT_MODES_FIELD_NUMBER: _ClassVar[int]
    ADMIN_SETTINGS_GROUP_PUBLIC_ID_FIELD_NUMBER: _ClassVar[int]
    BYOK_ENABLED_FIELD_NUMBER: _ClassVar[int]
    is_nightly: bool
    include_long_context_models: bool
    exclude_max_named_models: bool
    additional_model_names: _containers.RepeatedScalarFieldContainer[str]
    use_model_parameters: bool
    include_hidden_models: bool
    do_not_use_markdown: bool
    variants_will_be_shown_in_exploded_list: bool
    for_automations: bool
    scope: AvailableModelsScope
    use_react_model_picker: bool
    use_cloud_agent_effort_modes: bool
    admin_settings_group_public_id: str
    byok_enabled: bool
    def __init__(self, is_nightly: _Optional[bool] = ..., include_long_context_models: _Optional[bool] = ..., exclude_max_named_models: _Optional[bool] = ..., additional_model_names: _Optional[_Iterable[str]] = ..., use_model_parameters: _Optional[bool] = ..., include_hidden_models: _Optional[bool] = ..., do_not_use_markdown: _Optional[bool] = ..., variants_will_be_shown_in_exploded_list: _Optional[bool] = ..., for_automations: _Optional[bool] = ..., scope: _Optional[_Union[AvailableModelsScope, str]] = ..., use_react_model_picker: _Optional[bool] = ..., use_cloud_agent_effort_modes: _Optional[bool] = ..., admin_settings_group_public_id: _Optional[str] = ..., byok_enabled: _Optional[bool] = ...) -> None: ...

class ModelParameterValue(_message.Message):
    __slots__ = ("id", "value")
    ID_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    id: str
    value: str
    def __init__(self, id: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class AvailableModelsResponse(_message.Message):
    __slots__ = ("model_names", "models", "composer_model_config", "cmd_k_model_config", "background_composer_model_config", "plan_execution_model_config", "spec_model_config", "deep_search_model_config", "quick_agent_model_config", "use_model_parameters", "disable_unused_models_after_n_hours", "upgrade_unchanged_models_after_n_hours", "subagent_model_configs", "experimental_model_id", "experimental_model_display_name", "nudge_new_chats_to_auto_optimize_for")
    class DegradationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEGRADATION_STATUS_UNSPECIFIED: _ClassVar[AvailableModelsResponse.DegradationStatus]
        DEGRADATION_STATUS_DEGRADED: _ClassVar[AvailableModelsResponse.DegradationStatus]
        DEGRADATION_STATUS_DISABLED: _ClassVar[AvailableModelsResponse.DegradationStatus]
    DEGRADATION_STATUS_UNSPECIFIED: AvailableModelsResponse.DegradationStatus
    DEGRADATION_STATUS_DEGRADED: AvailableModelsResponse.DegradationStatus
    DEGRADATION_STATUS_DISABLED: AvailableModelsResponse.DegradationStatus
    class ModelVendorId(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        MODEL_VENDOR_ID_UNSPECIFIED: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_ANTHROPIC: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_OPENAI: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_GOOGLE: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_XAI: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_MOONSHOT: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_CURSOR: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_NVIDIA: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_ZAI: _ClassVar[AvailableModelsResponse.ModelVendorId]
        MODEL_VENDOR_ID_META: _ClassVar[AvailableModelsResponse.ModelVendorId]
    MODEL_VENDOR_ID_UNSPECIFIED: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_ANTHROPIC: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_OPENAI: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_GOOGLE: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_XAI: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_MOONSHOT: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_CURSOR: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_NVIDIA: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_ZAI: AvailableModelsResponse.ModelVendorId
    MODEL_VENDOR_ID_META: AvailableModelsResponse.ModelVendorId
    class TooltipData(_message.Message):
        __slots__ = ("primary_text", "secondary_text", "secondary_warning_text", "icon", "tertiary_text", "tertiary_text_url", "markdown_content")
        PRIMARY_TEXT_FIELD_NUMBER: _ClassVar[int]
        SECONDARY_TEXT_FIELD_NUMBER: _ClassVar[int]
        SECONDARY_WARNING_TEXT_FIELD_NUMBER: _ClassVar[int]
        ICON_FIELD_NUMBER: _ClassVar[int]
        TERTIARY_TEXT_FIELD_NUMBER: _ClassVar[int]
        TERTIARY_TEXT_URL_FIELD_NUMBER: _ClassVar[int]
        MARKDOWN_CONTENT_FIELD_NUMBER: _ClassVar[int]
        primary_text: str
        secondary_text: str
        secondary_warning_text: bool
        icon: str
        tertiary_text: str
        tertiary_text_url: str
        markdown_content: str
        def __init__(self, primary_text: _Optional[str] = ..., secondary_text: _Optional[str] = ..., secondary_warning_text: _Optional[bool] = ..., icon: _Optional[str] = ..., tertiary_text: _Optional[str] = ..., tertiary_text_url: _Optional[str] = ..., markdown_content: _Optional[str] = ...) -> None: ...
    class ConfirmationDialogue(_message.Message):
        __slots__ = ("title", "body", "key", "blocks_submission", "presentation")
        class Presentation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            PRESENTATION_UNSPECIFIED: _ClassVar[AvailableModelsResponse.ConfirmationDialogue.Presentation]
            PRESENTATION_POST_PICKER_WARNING: _ClassVar[AvailableModelsResponse.ConfirmationDialogue.Presentation]
        PRESENTATION_UNSPECIFIED: AvailableModelsResponse.ConfirmationDialogue.Presentation
        PRESENTATION_POST_PICKER_WARNING: AvailableModelsResponse.ConfirmationDialogue.Presentation
        TITLE_FIELD_NUMBER: _ClassVar[int]
        BODY_FIELD_NUMBER: _ClassVar[int]
        KEY_FIELD_NUMBER: _ClassVar[int]
        BLOCKS_SUBMISSION_FIELD_NUMBER: _ClassVar[int]
        PRESENTATION_FIELD_NUMBER: _ClassVar[int]
        title: str
        body: str
        key: str
        blocks_submission: bool
        presentation: AvailableModelsResponse.ConfirmationDialogue.Presentation
        def __init__(self, title: _Optional[str] = ..., body: _Optional[str] = ..., key: _Optional[str] = ..., blocks_submission: _Optional[bool] = ..., presentation: _Optional[_Union[AvailableModelsResponse.ConfirmationDialogue.Presentation, str]] = ...) -> None: ...
    class ModelVariantConfig(_message.Message):
        __slots__ = ("parameter_values", "display_name", "is_max_mode", "is_default_max_config", "is_default_non_max_config", "tooltip_data", "tagline", "display_name_outside_picker", "variant_string_representation", "confirmation_dialogue", "legacy_slug")
        PARAMETER_VALUES_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        IS_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
        IS_DEFAULT_MAX_CONFIG_FIELD_NUMBER: _ClassVar[int]
        IS_DEFAULT_NON_MAX_CONFIG_FIELD_NUMBER: _ClassVar[int]
        TOOLTIP_DATA_FIELD_NUMBER: _ClassVar[int]
        TAGLINE_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_OUTSIDE_PICKER_FIELD_NUMBER: _ClassVar[int]
        VARIANT_STRING_REPRESENTATION_FIELD_NUMBER: _ClassVar[int]
        CONFIRMATION_DIALOGUE_FIELD_NUMBER: _ClassVar[int]
        LEGACY_SLUG_FIELD_NUMBER: _ClassVar[int]
        parameter_values: _containers.RepeatedCompositeFieldContainer[ModelParameterValue]
        display_name: str
        is_max_mode: bool
        is_default_max_config: bool
        is_default_non_max_config: bool
        tooltip_data: AvailableModelsResponse.TooltipData
        tagline: str
        display_name_outside_picker: str
        variant_string_representation: str
        confirmation_dialogue: AvailableModelsResponse.ConfirmationDialogue
        legacy_slug: str
        def __init__(self, parameter_values: _Optional[_Iterable[_Union[ModelParameterValue, _Mapping]]] = ..., display_name: _Optional[str] = ..., is_max_mode: _Optional[bool] = ..., is_default_max_config: _Optional[bool] = ..., is_default_non_max_config: _Optional[bool] = ..., tooltip_data: _Optional[_Union[AvailableModelsResponse.TooltipData, _Mapping]] = ..., tagline: _Optional[str] = ..., display_name_outside_picker: _Optional[str] = ..., variant_string_representation: _Optional[str] = ..., confirmation_dialogue: _Optional[_Union[AvailableModelsResponse.ConfirmationDialogue, _Mapping]] = ..., legacy_slug: _Optional[str] = ...) -> None: ...
    class ModelVendor(_message.Message):
        __slots__ = ("id", "display_name")
        ID_FIELD_NUMBER: _ClassVar[int]
        DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        id: AvailableModelsResponse.ModelVendorId
        display_name: str
        def __init__(self, id: _Optional[_Union[AvailableModelsResponse.ModelVendorId, str]] = ..., display_name: _Optional[str] = ...) -> None: ...
    class ModelPickerBadge(_message.Message):
        __slots__ = ("label", "variant", "dismiss_on_selection")
        class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            VARIANT_UNSPECIFIED: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
            VARIANT_ACCENT: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
            VARIANT_NEUTRAL: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
            VARIANT_SUCCESS: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
            VARIANT_WARN: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
            VARIANT_DANGER: _ClassVar[AvailableModelsResponse.ModelPickerBadge.Variant]
        VARIANT_UNSPECIFIED: AvailableModelsResponse.ModelPickerBadge.Variant
        VARIANT_ACCENT: AvailableModelsResponse.ModelPickerBadge.Variant
        VARIANT_NEUTRAL: AvailableModelsResponse.ModelPickerBadge.Variant
        VARIANT_SUCCESS: AvailableModelsResponse.ModelPickerBadge.Variant
        VARIANT_WARN: AvailableModelsResponse.ModelPickerBadge.Variant
        VARIANT_DANGER: AvailableModelsResponse.ModelPickerBadge.Variant
        LABEL_FIELD_NUMBER: _ClassVar[int]
        VARIANT_FIELD_NUMBER: _ClassVar[int]
        DISMISS_ON_SELECTION_FIELD_NUMBER: _ClassVar[int]
        label: str
        variant: AvailableModelsResponse.ModelPickerBadge.Variant
        dismiss_on_selection: bool
        def __init__(self, label: _Optional[str] = ..., variant: _Optional[_Union[AvailableModelsResponse.ModelPickerBadge.Variant, str]] = ..., dismiss_on_selection: _Optional[bool] = ...) -> None: ...
    class FeatureModelConfig(_message.Message):
        __slots__ = ("default_model", "fallback_models", "best_of_n_default_models")
        DEFAULT_MODEL_FIELD_NUMBER: _ClassVar[int]
        FALLBACK_MODELS_FIELD_NUMBER: _ClassVar[int]
        BEST_OF_N_DEFAULT_MODELS_FIELD_NUMBER: _ClassVar[int]
        default_model: str
        fallback_models: _containers.RepeatedScalarFieldContainer[str]
        best_of_n_default_models: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, default_model: _Optional[str] = ..., fallback_models: _Optional[_Iterable[str]] = ..., best_of_n_default_models: _Optional[_Iterable[str]] = ...) -> None: ...
    class AvailableModel(_message.Message):
        __slots__ = ("name", "default_on", "is_long_context_only", "is_chat_only", "supports_agent", "degradation_status", "price", "tooltip_data", "supports_thinking", "supports_images", "supports_auto_context", "auto_context_max_tokens", "auto_context_extended_max_tokens", "supports_max_mode", "context_token_limit", "context_token_limit_for_max_mode", "client_display_name", "server_model_name", "supports_non_max_mode", "tooltip_data_for_max_mode", "is_recommended_for_background_composer", "supports_plan_mode", "is_user_added", "inputbox_short_model_name", "supports_sandboxing", "supports_cmd_k", "only_supports_cmd_k", "background_composer_sort_order", "variants", "cloud_migrate_to_model", "upgrade_model_id", "is_hidden", "legacy_slugs", "id_aliases", "named_model_section_index", "tagline", "visible_in_routed_model_view", "vendor_name", "vendor", "default_disabled_in_admin_allowlist", "supports_smart_mode_classifier", "requires_data_retention", "reason_for_zdr_consent_block", "model_picker_badges")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_ON_FIELD_NUMBER: _ClassVar[int]
        IS_LONG_CONTEXT_ONLY_FIELD_NUMBER: _ClassVar[int]
        IS_CHAT_ONLY_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_AGENT_FIELD_NUMBER: _ClassVar[int]
        DEGRADATION_STATUS_FIELD_NUMBER: _ClassVar[int]
        PRICE_FIELD_NUMBER: _ClassVar[int]
        TOOLTIP_DATA_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_THINKING_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_IMAGES_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_AUTO_CONTEXT_FIELD_NUMBER: _ClassVar[int]
        AUTO_CONTEXT_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
        AUTO_CONTEXT_EXTENDED_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
        CONTEXT_TOKEN_LIMIT_FIELD_NUMBER: _ClassVar[int]
        CONTEXT_TOKEN_LIMIT_FOR_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
        CLIENT_DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
        SERVER_MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_NON_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
        TOOLTIP_DATA_FOR_MAX_MODE_FIELD_NUMBER: _ClassVar[int]
        IS_RECOMMENDED_FOR_BACKGROUND_COMPOSER_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_PLAN_MODE_FIELD_NUMBER: _ClassVar[int]
        IS_USER_ADDED_FIELD_NUMBER: _ClassVar[int]
        INPUTBOX_SHORT_MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_SANDBOXING_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_CMD_K_FIELD_NUMBER: _ClassVar[int]
        ONLY_SUPPORTS_CMD_K_FIELD_NUMBER: _ClassVar[int]
        BACKGROUND_COMPOSER_SORT_ORDER_FIELD_NUMBER: _ClassVar[int]
        VARIANTS_FIELD_NUMBER: _ClassVar[int]
        CLOUD_MIGRATE_TO_MODEL_FIELD_NUMBER: _ClassVar[int]
        UPGRADE_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
        IS_HIDDEN_FIELD_NUMBER: _ClassVar[int]
        LEGACY_SLUGS_FIELD_NUMBER: _ClassVar[int]
        ID_ALIASES_FIELD_NUMBER: _ClassVar[int]
        NAMED_MODEL_SECTION_INDEX_FIELD_NUMBER: _ClassVar[int]
        TAGLINE_FIELD_NUMBER: _ClassVar[int]
        VISIBLE_IN_ROUTED_MODEL_VIEW_FIELD_NUMBER: _ClassVar[int]
        VENDOR_NAME_FIELD_NUMBER: _ClassVar[int]
        VENDOR_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_DISABLED_IN_ADMIN_ALLOWLIST_FIELD_NUMBER: _ClassVar[int]
        SUPPORTS_SMART_MODE_CLASSIFIER_FIELD_NUMBER: _ClassVar[int]
        REQUIRES_DATA_RETENTION_FIELD_NUMBER: _ClassVar[int]
        REASON_FOR_ZDR_CONSENT_BLOCK_FIELD_NUMBER: _ClassVar[int]
        MODEL_PICKER_BADGES_FIELD_NUMBER: _ClassVar[int]
        name: str
        default_on: bool
        is_long_context_only: bool
        is_chat_only: bool
        supports_agent: bool
        degradation_status: AvailableModelsResponse.DegradationStatus
        price: float
        tooltip_data: AvailableModelsResponse.TooltipData
        supports_thinking: bool
        supports_images: bool
        supports_auto_context: bool
        auto_context_max_tokens: int
        auto_context_extended_max_tokens: int
        supports_max_mode: bool
        context_token_limit: int
        context_token_limit_for_max_mode: int
        client_display_name: str
        server_model_name: str
        supports_non_max_mode: bool
        tooltip_data_for_max_mode: AvailableModelsResponse.TooltipData
        is_recommended_for_background_composer: bool
        supports_plan_mode: bool
        is_user_added: bool
        inputbox_short_model_name: str
        supports_sandboxing: bool
        supports_cmd_k: bool
        only_supports_cmd_k: bool
        background_composer_sort_order: int
        variants: _containers.RepeatedCompositeFieldContainer[AvailableModelsResponse.ModelVariantConfig]
        cloud_migrate_to_model: str
        upgrade_model_id: str
        is_hidden: bool
        legacy_slugs: _containers.RepeatedScalarFieldContainer[str]
        id_aliases: _containers.RepeatedScalarFieldContainer[str]
        named_model_section_index: int
        tagline: str
        visible_in_routed_model_view: bool
        vendor_name: str
        vendor: AvailableModelsResponse.ModelVendor
        default_disabled_in_admin_allowlist: bool
        supports_smart_mode_classifier: bool
        requires_data_retention: bool
        reason_for_zdr_consent_block: str
        model_picker_badges: _containers.RepeatedCompositeFieldContainer[AvailableModelsResponse.ModelPickerBadge]
        def __init__(self, name: _Optional[str] = ..., default_on: _Optional[bool] = ..., is_long_context_only: _Optional[bool] = ..., is_chat_only: _Optional[bool] = ..., supports_agent: _Optional[bool] = ..., degradation_status: _Optional[_Union[AvailableModelsResponse.DegradationStatus, str]] = ..., price: _Optional[float] = ..., tooltip_data: _Optional[_Union[AvailableModelsResponse.TooltipData, _Mapping]] = ..., supports_thinking: _Optional[bool] = ..., supports_images: _Optional[bool] = ..., supports_auto_context: _Optional[bool] = ..., auto_context_max_tokens: _Optional[int] = ..., auto_context_extended_max_tokens: _Optional[int] = ..., supports_max_mode: _Optional[bool] = ..., context_token_limit: _Optional[int] = ..., context_token_limit_for_max_mode: _Optional[int] = ..., client_display_name: _Optional[str] = ..., server_model_name: _Optional[str] = ..., supports_non_max_mode: _Optional[bool] = ..., tooltip_data_for_max_mode: _Optional[_Union[AvailableModelsResponse.TooltipData, _Mapping]] = ..., is_recommended_for_background_composer: _Optional[bool] = ..., supports_plan_mode: _Optional[bool] = ..., is_user_added: _Optional[bool] = ..., inputbox_short_model_name: _Optional[str] = ..., supports_sandboxing: _Optional[bool] = ..., supports_cmd_k: _Optional[bool] = ..., only_supports_cmd_k: _Optional[bool] = ..., background_composer_sort_order: _Optional[int] = ..., variants: _Optional[_Iterable[_Union[AvailableModelsResponse.ModelVariantConfig, _Mapping]]] = ..., cloud_migrate_to_model: _Optional[str] = ..., upgrade_model_id: _Optional[str] = ..., is_hidden: _Optional[bool] = ..., legacy_slugs: _Optional[_Iterable[str]] = ..., id_aliases: _Optional[_Iterable[str]] = ..., named_model_section_index: _Optional[int] = ..., tagline: _Optional[str] = ..., visible_in_routed_model_view: _Optional[bool] = ..., vendor_name: _Optional[str] = ..., vendor: _Optional[_Union[AvailableModelsResponse.ModelVendor, _Mapping]] = ..., default_disabled_in_admin_allowlist: _Optional[bool] = ..., supports_smart_mode_classifier: _Optional[bool] = ..., requires_data_retention: _Optional[bool] = ..., reason_for_zdr_consent_block: _Optional[str] = ..., model_picker_badges: _Optional[_Iterable[_Union[AvailableModelsResponse.ModelPickerBadge, _Mapping]]] = ...) -> None: ...
    class SubagentModelConfigsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: AvailableModelsResponse.FeatureModelConfig
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ...) -> None: ...
    MODEL_NAMES_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    COMPOSER_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    CMD_K_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    BACKGROUND_COMPOSER_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    PLAN_EXECUTION_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SPEC_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    DEEP_SEARCH_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    QUICK_AGENT_MODEL_CONFIG_FIELD_NUMBER: _ClassVar[int]
    USE_MODEL_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    DISABLE_UNUSED_MODELS_AFTER_N_HOURS_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_UNCHANGED_MODELS_AFTER_N_HOURS_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_MODEL_CONFIGS_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_MODEL_ID_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_MODEL_DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    NUDGE_NEW_CHATS_TO_AUTO_OPTIMIZE_FOR_FIELD_NUMBER: _ClassVar[int]
    model_names: _containers.RepeatedScalarFieldContainer[str]
    models: _containers.RepeatedCompositeFieldContainer[AvailableModelsResponse.AvailableModel]
    composer_model_config: AvailableModelsResponse.FeatureModelConfig
    cmd_k_model_config: AvailableModelsResponse.FeatureModelConfig
    background_composer_model_config: AvailableModelsResponse.FeatureModelConfig
    plan_execution_model_config: AvailableModelsResponse.FeatureModelConfig
    spec_model_config: AvailableModelsResponse.FeatureModelConfig
    deep_search_model_config: AvailableModelsResponse.FeatureModelConfig
    quick_agent_model_config: AvailableModelsResponse.FeatureModelConfig
    use_model_parameters: bool
    disable_unused_models_after_n_hours: int
    upgrade_unchanged_models_after_n_hours: int
    subagent_model_configs: _containers.MessageMap[str, AvailableModelsResponse.FeatureModelConfig]
    experimental_model_id: str
    experimental_model_display_name: str
    nudge_new_chats_to_auto_optimize_for: str
    def __init__(self, model_names: _Optional[_Iterable[str]] = ..., models: _Optional[_Iterable[_Union[AvailableModelsResponse.AvailableModel, _Mapping]]] = ..., composer_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., cmd_k_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., background_composer_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., plan_execution_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., spec_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., deep_search_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., quick_agent_model_config: _Optional[_Union[AvailableModelsResponse.FeatureModelConfig, _Mapping]] = ..., use_model_parameters: _Optional[bool] = ..., disable_unused_models_after_n_hours: _Optional[int] = ..., upgrade_unchanged_models_after_n_hours: _Optional[int] = ..., subagent_model_configs: _Optional[_Mapping[str, AvailableModelsResponse.FeatureModelConfig]] = ..., experimental_model_id: _Optional[str] = ..., experimental_model_display_name: _Optional[str] = ..., nudge_new_chats_to_auto_optimize_for: _Optional[str] = ...) -> None: ...
