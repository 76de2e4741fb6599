// One handler per API, each in broker/handlers/<api>.cc.
#pragma once

#include "broker/request_context.h"

namespace rokka::broker {

boost::asio::awaitable<HandlerResult> handle_api_versions(RequestContext ctx);

}  // namespace rokka::broker
