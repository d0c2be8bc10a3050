# Generated from proto/ by scripts/gen_proto.sh (grpcio-tools protoc). Do not edit; rerun the script.
