// Method lookup for the relay: every service of the generated descriptors, by full name.
// Adding an RPC to a proto file and regenerating is all the relay needs.

import { createRegistry, type DescMethod, type DescFile } from "@bufbuild/protobuf";
import { file_cairn_v1_checkpoint } from "@cairn/proto/gen/cairn/v1/checkpoint_pb";
import { file_cairn_v1_host_bridge } from "@cairn/proto/gen/cairn/v1/host_bridge_pb";
import { file_cairn_v1_hooks } from "@cairn/proto/gen/cairn/v1/hooks_pb";
import { file_cairn_v1_message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { file_cairn_v1_state } from "@cairn/proto/gen/cairn/v1/state_pb";
import { file_cairn_v1_task } from "@cairn/proto/gen/cairn/v1/task_pb";
import { file_cairn_v1_workspace } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { file_cairn_host_v1_host } from "@cairn/proto/gen/cairn/host/v1/host_pb";

/** MethodRegistry finds a method by "package.Service" and method name. */
export interface MethodRegistry {
  method(service: string, method: string): DescMethod | undefined;
}

export function registryFromFiles(files: DescFile[]): MethodRegistry {
  const reg = createRegistry(...files);
  return {
    method(service, method) {
      const svc = reg.getService(service);
      return svc?.methods.find((m) => m.name === method);
    },
  };
}

/** cairnRegistry holds every generated file of the cairn protos. */
export const cairnRegistry: MethodRegistry = registryFromFiles([
  file_cairn_host_v1_host,
  file_cairn_v1_message,
  file_cairn_v1_state,
  file_cairn_v1_task,
  file_cairn_v1_workspace,
  file_cairn_v1_host_bridge,
  file_cairn_v1_hooks,
  file_cairn_v1_checkpoint,
]);
