;;; emacs_dap.el --- cudbg-tui --dap driven by Emacs dap-mode, headless  -*- lexical-binding: t -*-

;; A real editor client in the tests (issue 31 item 2): Debian 12's
;; elpa-dap-mode (dap-mode 0.7) in `emacs --batch', with the provider of
;; docs/dap.md.  Against real gdb on tests/progs/dap_prog.c: a breakpoint
;; set the way a user sets one (a buffer visiting the file, the line),
;; the stop there, a step over (dap-next), the stack, continue to the
;; end.  Against a cuda-gdb recording (seed_py, a PyTorch device assert):
;; the stopped event with reason exception and exceptionInfo.  Prints one
;; PASS/FAIL line per check; tests/sh/dap_emacs.sh runs it.
;; Environment: CUDBG_BIN, CUDBG_BUILD, CUDBG_ROOT, CUDBG_FIXTURES.

(require 'dap-mode)
;; dap-mode 0.7 reads it when a session starts but defines it in a file
;; it does not load itself
(defvar dap-exception-breakpoints nil)

(defvar cudbg-bin (getenv "CUDBG_BIN"))
(defvar cudbg-root (getenv "CUDBG_ROOT"))
(defvar cudbg-build (getenv "CUDBG_BUILD"))
(defvar cudbg-fixtures (getenv "CUDBG_FIXTURES"))
(defvar cudbg-stops nil "Sessions stopped, newest first.")
(defvar cudbg-ended nil "Sessions that terminated.")
(defvar cudbg-failed 0)

(add-hook 'dap-stopped-hook (lambda (s) (push s cudbg-stops)))
(add-hook 'dap-terminated-hook (lambda (s) (push s cudbg-ended)))

;; the provider of docs/dap.md
(dap-register-debug-provider
 "cudbg"
 (lambda (conf)
   (plist-put conf :dap-server-path (list cudbg-bin "--dap"))
   conf))

(defun cudbg-check (name ok &optional detail)
  (unless ok (setq cudbg-failed (1+ cudbg-failed)))
  (princ (format "%s dap-mode/%s%s\n" (if ok "PASS" "FAIL") name
                 (if ok "" (format ": %s" detail)))))

(defun cudbg-wait (pred secs)
  "Run the event loop until PRED holds or SECS pass (four times as long
under valgrind); PRED's value."
  (let ((end (+ (float-time)
                (* secs (if (equal (getenv "CUDBG_UNDER_VALGRIND") "1") 4 1))))
        v)
    (while (and (not (setq v (funcall pred))) (< (float-time) end))
      (accept-process-output nil 0.05))
    v))

(defun cudbg-top-frame (session)
  (let* ((tid (dap--debug-session-thread-id session))
         (body (dap-request session "stackTrace" :threadId tid)))
    (car (append (gethash "stackFrames" body) nil))))

(defun cudbg-mark-line (mark)
  (with-temp-buffer
    (insert-file-contents (expand-file-name "tests/progs/dap_prog.c" cudbg-root))
    (goto-char (point-min))
    (search-forward mark)
    (line-number-at-pos)))

(defun cudbg-gdb-case ()
  (let* ((src (expand-file-name "tests/progs/dap_prog.c" cudbg-root))
         (line (cudbg-mark-line "MARK_TWICE_BODY")))
    ;; a breakpoint as a user sets it: in the file's buffer, at the line
    (with-current-buffer (find-file-noselect src)
      (goto-char (point-min))
      (forward-line (1- line))
      (dap-breakpoint-add))
    (setq cudbg-stops nil cudbg-ended nil)
    (dap-debug (list :type "cudbg" :request "launch" :name "cudbg gdb"
                     :program (expand-file-name "progs/dap_prog" cudbg-build)
                     :args ["x"] :debugger "gdb" :memcheck "never"
                     :cwd cudbg-build))
    (let ((s (cudbg-wait (lambda () (car cudbg-stops)) 60)))
      (cudbg-check "gdb-stopped-at-breakpoint" s "no stopped event")
      (when s
        (let ((f (cudbg-top-frame s)))
          (cudbg-check "gdb-frame" (and (equal (gethash "name" f) "twice")
                                        (= (gethash "line" f) line))
                       (format "%s:%s" (gethash "name" f) (gethash "line" f))))
        (setq cudbg-stops nil)
        (dap-next s)
        (let ((s2 (cudbg-wait (lambda () (car cudbg-stops)) 30)))
          (cudbg-check "gdb-next" (and s2 (= (gethash "line" (cudbg-top-frame s2))
                                             (1+ line)))
                       (and s2 (gethash "line" (cudbg-top-frame s2))))
          (when s2
            (dap-breakpoint-delete-all)
            (dap-continue s2 (dap--debug-session-thread-id s2))
            (cudbg-check "gdb-ran-to-the-end"
                         (cudbg-wait (lambda () (memq s2 cudbg-ended)) 60)
                         "no terminated event")))))))

(defun cudbg-replay-case ()
  (setq cudbg-stops nil cudbg-ended nil)
  (dap-debug (list :type "cudbg" :request "launch" :name "cudbg replay"
                   :replay (expand-file-name "seed_py.mi.log" cudbg-fixtures)))
  (let ((s (cudbg-wait (lambda () (car cudbg-stops)) 60)))
    (cudbg-check "replay-stopped" s "no stopped event")
    (when s
      (let* ((tid (dap--debug-session-thread-id s))
             (info (dap-request s "exceptionInfo" :threadId tid))
             (details (gethash "details" info)))
        (cudbg-check "replay-exception-info"
                     (and (equal (gethash "exceptionId" info) "CUDA_EXCEPTION_12")
                          (string-match-p "Loss\\.cu:245"
                                          (gethash "stackTrace" details)))
                     (format "%S" (gethash "exceptionId" info)))
        (let ((hint (car (append (gethash "hints" (gethash "cudbg" details)) nil))))
          (cudbg-check "replay-hint" (equal (gethash "id" hint)
                                            "pytorch-class-index")
                       (gethash "id" hint))))
      (dap-disconnect s)
      (cudbg-check "replay-disconnected"
                   (cudbg-wait (lambda () (memq s cudbg-ended)) 30)
                   "no terminated event"))))

(condition-case err
    (progn (cudbg-gdb-case) (cudbg-replay-case))
  (error (cudbg-check "no-lisp-error" nil (error-message-string err))))
(kill-emacs (if (> cudbg-failed 0) 1 0))
