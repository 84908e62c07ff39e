"""sigint.py CMD... - starts CMD, sends it SIGINT after a second, prints its
output and its exit status ("exit N"); gives up after 60 s."""
import signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
time.sleep(1.0)
p.send_signal(signal.SIGINT)
try:
    out, _ = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, _ = p.communicate()
    print(out)
    print("not stopped by SIGINT")
    sys.exit(1)
print(out)
print("exit", p.returncode)
