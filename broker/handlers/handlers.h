// One handler per API, each in broker/handlers/<api>.cc.
#pragma once

#include "broker/net/request_context.h"

namespace rokka::broker {

using HandlerCoroutine = boost::asio::awaitable<HandlerResult>;

HandlerCoroutine handle_api_versions(RequestContext ctx);
HandlerCoroutine handle_metadata(RequestContext ctx);
HandlerCoroutine handle_describe_topic_partitions(RequestContext ctx);
HandlerCoroutine handle_produce(RequestContext ctx);
HandlerCoroutine handle_fetch(RequestContext ctx);
HandlerCoroutine handle_list_offsets(RequestContext ctx);
HandlerCoroutine handle_offset_for_leader_epoch(RequestContext ctx);
HandlerCoroutine handle_create_topics(RequestContext ctx);
HandlerCoroutine handle_delete_topics(RequestContext ctx);
HandlerCoroutine handle_create_partitions(RequestContext ctx);
HandlerCoroutine handle_delete_records(RequestContext ctx);
HandlerCoroutine handle_describe_configs(RequestContext ctx);
HandlerCoroutine handle_alter_configs(RequestContext ctx);
HandlerCoroutine handle_incremental_alter_configs(RequestContext ctx);
HandlerCoroutine handle_init_producer_id(RequestContext ctx);
HandlerCoroutine handle_describe_cluster(RequestContext ctx);
HandlerCoroutine handle_find_coordinator(RequestContext ctx);
HandlerCoroutine handle_join_group(RequestContext ctx);
HandlerCoroutine handle_sync_group(RequestContext ctx);
HandlerCoroutine handle_heartbeat(RequestContext ctx);
HandlerCoroutine handle_leave_group(RequestContext ctx);
HandlerCoroutine handle_offset_commit(RequestContext ctx);
HandlerCoroutine handle_offset_fetch(RequestContext ctx);
HandlerCoroutine handle_list_groups(RequestContext ctx);
HandlerCoroutine handle_sasl_handshake(RequestContext ctx);
HandlerCoroutine handle_sasl_authenticate(RequestContext ctx);
HandlerCoroutine handle_describe_groups(RequestContext ctx);
HandlerCoroutine handle_consumer_group_heartbeat(RequestContext ctx);
HandlerCoroutine handle_consumer_group_describe(RequestContext ctx);
HandlerCoroutine handle_delete_groups(RequestContext ctx);
HandlerCoroutine handle_offset_delete(RequestContext ctx);
HandlerCoroutine handle_add_partitions_to_txn(RequestContext ctx);
HandlerCoroutine handle_add_offsets_to_txn(RequestContext ctx);
HandlerCoroutine handle_end_txn(RequestContext ctx);
HandlerCoroutine handle_write_txn_markers(RequestContext ctx);
HandlerCoroutine handle_describe_transactions(RequestContext ctx);
HandlerCoroutine handle_list_transactions(RequestContext ctx);
HandlerCoroutine handle_describe_producers(RequestContext ctx);
HandlerCoroutine handle_describe_log_dirs(RequestContext ctx);
HandlerCoroutine handle_elect_leaders(RequestContext ctx);
HandlerCoroutine handle_alter_partition_reassignments(RequestContext ctx);
HandlerCoroutine handle_list_partition_reassignments(RequestContext ctx);
HandlerCoroutine handle_txn_offset_commit(RequestContext ctx);
HandlerCoroutine handle_describe_acls(RequestContext ctx);
HandlerCoroutine handle_create_acls(RequestContext ctx);
HandlerCoroutine handle_delete_acls(RequestContext ctx);
HandlerCoroutine handle_describe_user_scram_credentials(RequestContext ctx);
HandlerCoroutine handle_alter_user_scram_credentials(RequestContext ctx);
HandlerCoroutine handle_describe_client_quotas(RequestContext ctx);
HandlerCoroutine handle_alter_client_quotas(RequestContext ctx);

}  // namespace rokka::broker
