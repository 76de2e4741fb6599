# Sourced by run.sh, with its $cxx, $flags, $out, $secs, $status and check_artifacts: the security
# room's targets. fuzz_scram: SCRAM messages, the server's exchange, credential
# records, JAAS values and PLAIN; fuzz_jwt: OAUTHBEARER messages, unsecured and
# signed JWTs (claims signed at run time so their checks are reached), JWKS.
# Their objects are security/*.cc (TLS contexts aside) and OpenSSL.
# rapidjson's internal stack offsets its null pointer before the first push (harmless, but
# UBSan's pointer-overflow check aborts on it), so json.cc is built without that one check.
ls security/*.cc | grep -v '/tls_context\.cc$' |
  xargs -P2 -I{} sh -c 'o="$1/obj/$(echo "${2%.cc}" | tr / _).o"; extra=""; [ "$2" = security/json.cc ] && extra=-fno-sanitize=pointer-overflow
    [ "$o" -nt "$2" ] || '"$cxx"' '"${flags[*]}"' $extra -c "$2" -o "$o"' _ "$out" {}
security_objs=$(ls "$out"/obj/security_*.o | grep -v '_tls_context\.o$')
for target in scram jwt; do
  $cxx -fsanitize=fuzzer,address,undefined $security_objs "$out/obj/tests_fuzz_fuzz_$target.o" -lssl -lcrypto -o "$out/fuzz_$target"
  mkdir -p "$out/corpus/$target" "$out/seeds/$target"
  cp -n tests/fuzz/seeds/$target/* "$out/seeds/$target/" 2>/dev/null || true
  echo "== fuzz_$target: ${secs}s"
  (cd "$out" && ./fuzz_$target -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
      "corpus/$target" "seeds/$target" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)|Done ") || true
  check_artifacts "$target"
done
